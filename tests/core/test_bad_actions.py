"""Bad actions: what ``step`` and ``apply`` accept and how they refuse the rest.

Accepted everywhere an action is: an ``int``, a numpy integer, a 0-d integer array (SB3's
``predict`` returns one). ``raw_env``, the single-agent view and ``GameState.apply`` raise a
``ValueError`` for anything else; ``env()`` keeps PettingZoo's ``AssertOutOfBoundsWrapper``
behaviour (what ``Discrete(n).contains`` refuses fails an assertion). After the game, steps
are accepted like PettingZoo's classic games do.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.classic import connect_four_v3

import sky_envs
from sky_envs.gym_env import SingleAgentEnv

BUILTIN = [env_id for env_id in sky_envs.env_ids() if not env_id.startswith("tiny_")]


def legal_action(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def not_integers(k: int) -> list:
    """Actions that stand for k but are not integers, and arrays of other shapes."""
    return [float(k), k + 0.7, np.float64(k), np.array(float(k)), str(k), None, np.array([k]),
            np.array([[k]]), np.array(k, dtype=object), [k], (k,), complex(k), np.True_, np.array(True)]


def play_to_the_end(env) -> None:
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else legal_action(env))


# ------------------------------------------------------------------ after the end
@pytest.mark.parametrize("env_id", BUILTIN)
@pytest.mark.parametrize("make", [sky_envs.make, sky_envs.make_raw])
def test_steps_after_the_game_are_accepted_like_pettingzoo_classic_games(env_id, make):
    """``env.step(None)`` after the game raised ``KeyError: 'player_1'``."""
    env = make(env_id, max_turns=3)
    env.reset(seed=0)
    play_to_the_end(env)
    assert env.agents == []
    text = env.unwrapped.game_state.to_text()
    for action in (None, 0, np.array(0), "junk"):
        with pytest.warns(UserWarning, match="step\\(\\) called after all agents are terminated or truncated"):
            env.step(action)
    assert env.unwrapped.game_state.to_text() == text and env.agents == []


def test_pettingzoo_classic_games_accept_the_same_steps():
    """The behaviour matched above, checked on PettingZoo's own connect_four_v3."""
    env = connect_four_v3.env()
    env.reset(seed=0)
    play_to_the_end(env)
    for action in (None, 0, np.array(0), "junk"):
        env.step(action)  # warns through PettingZoo's logger, raises nothing


@pytest.mark.parametrize("make", [sky_envs.make, sky_envs.make_raw])
def test_a_dead_agent_still_listed_may_only_pass_none(make):
    """While agents are still listed, PettingZoo's rule: a dead agent's action is None."""
    env = make("scala_v0", max_turns=1)
    env.reset(seed=0)
    env.step(legal_action(env))
    assert env.agents and env.truncations[env.agent_selection]
    with pytest.raises(ValueError, match="when an agent is dead, the only valid action is None"):
        env.step(0)


# ------------------------------------------------------------------ 0-d arrays
@pytest.mark.parametrize("env_id", BUILTIN)
def test_zero_d_integer_arrays_are_played_everywhere(env_id):
    for make in (sky_envs.make, sky_envs.make_raw):
        env, twin = make(env_id), make(env_id)
        env.reset(seed=3)
        twin.reset(seed=3)
        for dtype in (np.int64, np.int32, np.uint8):
            k = legal_action(env)
            if k > np.iinfo(dtype).max:
                continue
            env.step(np.array(k, dtype=dtype))
            twin.step(k)
            assert env.unwrapped.game_state.to_text() == twin.unwrapped.game_state.to_text()
    state = sky_envs.make_game(env_id).new_initial_state(np.random.default_rng(0))
    twin = state.clone()
    k = int(state.legal_actions()[0])
    state.apply(np.array(k))
    twin.apply(k)
    assert state.to_text() == twin.to_text()
    view = SingleAgentEnv(env_id, seat=0)
    _, info = view.reset(seed=0)
    view.step(np.array(int(np.flatnonzero(info["action_mask"])[0])))


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("env_id", BUILTIN)
def test_non_integer_actions_are_refused_and_change_nothing(env_id):
    raw, env = sky_envs.make_raw(env_id), sky_envs.make(env_id)
    raw.reset(seed=1)
    env.reset(seed=1)
    k = legal_action(raw)
    text = raw.unwrapped.game_state.to_text()
    for bad in not_integers(k):
        with pytest.raises(ValueError, match="is not an integer action index"):
            raw.step(bad)
        with pytest.raises(ValueError, match="is not an integer action index"):
            raw.unwrapped.game_state.apply(bad)
        with pytest.raises(AssertionError, match="outside the action space"):
            env.step(bad)
        assert raw.unwrapped.game_state.to_text() == text == env.unwrapped.game_state.to_text()
    with pytest.raises(ValueError, match="is not an integer action index"):
        raw.step(True)  # raw_env: a bool is not an action index (env() takes it as Discrete does)


@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
def test_the_single_agent_view_never_truncates(illegal_action):
    """``step(2.7)`` played action 2, ``step("3")`` played 3, ``step(None)`` raised TypeError."""
    view = SingleAgentEnv("sky_scrapers_v0", seat=0, illegal_action=illegal_action)
    view.reset(seed=0)
    text = view.game_state.to_text()
    for bad in (2.7, "3", None, *not_integers(3), True):
        with pytest.raises(ValueError, match="is not an integer action index"):
            view.step(bad)
        assert view.game_state is not None and view.game_state.to_text() == text


# ------------------------------------------------------------------ fuzzing
def is_action_index(action) -> bool:
    """The spec, written independently of the code: int (not bool), numpy integer, 0-d
    integer array."""
    if isinstance(action, np.ndarray):
        return action.shape == () and np.issubdtype(action.dtype, np.integer)
    return isinstance(action, (int, np.integer)) and not isinstance(action, bool)


INTS = st.one_of(st.integers(-3, 400), st.integers(-(2**70), 2**70))
DTYPES = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint64])
CANDIDATES = st.one_of(
    INTS,
    st.sampled_from([np.uint64(2**64 - 1), np.int64(2**63 - 1), np.array(2**64 - 1, dtype=np.uint64),
                     np.array(3, dtype=object), np.int64(-1)]),
    st.builds(lambda k, t: np.array(k % 256).astype(t)[()], INTS, DTYPES),   # numpy integers
    st.builds(lambda k, t: np.array(k % 256).astype(t), INTS, DTYPES),       # 0-d integer arrays
    st.builds(lambda k, t: np.array([k % 256]).astype(t), INTS, DTYPES),     # 1-d arrays
    st.floats(allow_nan=True), st.builds(np.float32, st.floats(-1e3, 1e3, width=32)),
    st.builds(lambda x: np.array(x), st.floats(-1e3, 1e3)),
    st.booleans(), st.just(np.True_), st.none(), st.text(max_size=4), INTS.map(str),
    st.lists(st.integers(0, 5), max_size=2), st.tuples(st.integers(0, 5)),
)


@st.composite
def positions_and_actions(draw):
    env_id = draw(st.sampled_from(BUILTIN))
    seed = draw(st.integers(0, 2**16))
    plies = draw(st.integers(0, 20))
    mask_pick = draw(st.booleans())  # often a legal action, dressed as the candidate's type
    action = draw(CANDIDATES)
    return env_id, seed, plies, action, mask_pick


def advanced(make, env_id, seed, plies):
    env = make(env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if env.unwrapped.game_state.current_player < 0:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


def dressed_as(action, k: int):
    """A legal ``k`` in the type and shape of ``action`` (unchanged when that cannot hold k)."""
    if isinstance(action, np.ndarray) and action.dtype.kind in "iu":
        return np.full(action.shape, k % 256, dtype=action.dtype) if k < 256 else action
    if isinstance(action, np.integer) and k < 128:
        return type(action)(k)
    return k if isinstance(action, int) and not isinstance(action, bool) else action


def in_action_space(action, n: int) -> bool:
    """``Discrete(n).contains(action)``, AssertOutOfBoundsWrapper's rule. Gymnasium raises
    OverflowError for a Python int beyond int64 instead of answering: it is outside."""
    try:
        return bool(spaces.Discrete(n).contains(action))
    except OverflowError:
        return False


def check_action(env_id, seed, plies, action, mask_pick):
    raw = advanced(sky_envs.make_raw, env_id, seed, plies)
    state = raw.unwrapped.game_state
    if state.current_player < 0:
        return
    mask = state.legal_mask()
    if mask_pick:
        action = dressed_as(action, int(np.flatnonzero(mask)[0]))
    text, n = state.to_text(), raw.game.num_actions
    index = int(action[()] if isinstance(action, np.ndarray) else action) if is_action_index(action) else None
    legal = index is not None and 0 <= index < n and bool(mask[index])

    # GameState.apply and raw_env: play exactly the legal indices, ValueError otherwise
    expected = state.clone()
    if legal:
        expected.apply(index)
    via_apply = state.clone()
    for apply in (via_apply.apply, raw.step):
        if legal:
            apply(action)
        else:
            with pytest.raises(ValueError):
                apply(action)
    assert via_apply.to_text() == raw.unwrapped.game_state.to_text() == expected.to_text()
    assert legal or expected.to_text() == text

    # the single-agent view: the rule of raw_env, whatever ``illegal_action`` says
    view = SingleAgentEnv(env_id, seat=0, illegal_action="lose")
    _, info = view.reset(seed=seed)
    view_mask = info["action_mask"]
    view_action = dressed_as(action, int(np.flatnonzero(view_mask)[0])) if mask_pick else action
    if is_action_index(view_action):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            view.step(view_action)
        view_index = int(view_action[()] if isinstance(view_action, np.ndarray) else view_action)
        assert bool(caught) == (not (0 <= view_index < n and view_mask[view_index]))  # an illegal index loses
    else:
        with pytest.raises(ValueError, match="is not an integer action index"):
            view.step(view_action)

    # env(): AssertOutOfBoundsWrapper's rule (Discrete.contains), then an illegal move loses
    env = advanced(sky_envs.make, env_id, seed, plies)
    if not in_action_space(action, n):
        with pytest.raises(AssertionError, match="outside the action space"):
            env.step(action)
        assert env.unwrapped.game_state.to_text() == text
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.step(action)
    assert bool(caught) == (not mask[int(action[()] if isinstance(action, np.ndarray) else action)])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions_and_actions())
def test_any_action_is_played_or_refused_by_the_rules(case):
    check_action(*case)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions_and_actions())
def test_any_action_is_played_or_refused_by_the_rules_long(case):
    check_action(*case)
