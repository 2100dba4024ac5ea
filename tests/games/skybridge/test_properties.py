"""Skybridge properties on random games: conservation, text round trips, clones, determinism,
and agreement with an independent reading of the rules (``test_skybridge_support``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sky_envs
from tests.games.skybridge.skybridge_support import (
    game, random_action, random_states, reference_actions, reference_scores, name_action,
)

configs = st.fixed_dictionaries({
    "players": st.sampled_from((2, 3, 4)),
    "variant": st.sampled_from(("seed", "classic")),
    "shape": st.sampled_from(((3, 3), (2, 2), (2, 3), (3, 4), (4, 4))),
})


def make(config, **extra):
    rows, cols = config["shape"]
    return game(players=config["players"], variant=config["variant"], rows=rows, cols=cols, **extra)


def pieces_in_play(state) -> list[list[int]]:
    """Per colour [T, S, B, R] on the board plus in the supplies."""
    g = state.game
    used = [[0, 0, 0, 0] for _ in range(4)]
    for stack in state.stacks:
        for piece in stack:
            colour, kind = piece >> 3, piece & 7
            if kind >= 4:
                used[colour][2] += 0.5  # two ends, one bridge
            else:
                used[colour][{0: 0, 1: 1, 2: 3}[kind]] += 1
    for seat, slots in enumerate(state.supply):
        for slot, sup in enumerate(slots):
            for k in range(4):
                used[g.slot_colour[seat][slot]][k] += sup[k]
    return used


def check_state(state) -> None:
    """Every invariant one state must keep."""
    g = state.game
    text = state.to_text()
    # pieces on the board plus supplies are conserved
    assert pieces_in_play(state) == g.colour_total
    # exact text round trip, and the reloaded state is the same state in every respect
    twin = g.state_from_text(text)
    assert twin.to_text() == text
    assert twin.current_player == state.current_player and twin.is_terminal() == state.is_terminal()
    np.testing.assert_array_equal(twin.legal_mask(), state.legal_mask())
    np.testing.assert_array_equal(twin.features, state.features)  # incremental == from scratch
    # the state's invariants
    mask = state.legal_mask()
    assert mask.dtype == bool and mask.shape == (g.num_actions,)
    if state.current_player >= 0:
        assert mask.any()
    else:
        assert not mask.any() and state.is_over()
    # the rules agree with an independent reading of the rules file
    rows, cols = g.rows, g.cols
    for seat in range(g.num_players):
        mine = {name_action(state, a, seat) for a in state._seat_actions(seat)}
        assert mine == reference_actions(text, g.num_players, rows, cols, g.variant, seat), (text, seat)
    if state.current_player >= 0:
        assert {name_action(state, a) for a in state.legal_actions()} == reference_actions(
            text, g.num_players, rows, cols, g.variant, state.current_player)
    assert state.scores() == reference_scores(text, g.num_players, g.variant)
    # observations: shape, dtype, bounds
    for seat in range(g.num_players):
        obs = state.observation(seat)
        assert obs.shape == g.observation_shape and obs.dtype == np.float32
        assert obs.min() >= g.observation_low and obs.max() <= g.observation_high


@settings(max_examples=120, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), bridge_bias=st.sampled_from((0.0, 0.7)))
def test_random_games_keep_every_invariant(config, seed, bridge_bias):
    g = make(config)
    for state in random_states(g, np.random.default_rng(seed), 1, bridge_bias):
        check_state(state)
    assert state.is_terminal()
    assert state.pieces_on_board <= g.total_pieces


@settings(max_examples=60, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 60))
def test_clones_are_independent(config, seed, cut):
    g = make(config)
    rng = np.random.default_rng(seed)
    state = g.new_initial_state(rng)
    for _ in range(cut):
        if state.current_player < 0:
            break
        state.apply(random_action(state, rng, 0.5))
    before = state.to_text()
    twin = state.clone()
    assert twin.to_text() == before
    np.testing.assert_array_equal(twin.observation(0), state.observation(0))
    assert twin.rng.integers(1 << 30) == state.rng.integers(1 << 30)  # same stream, own copy
    while twin.current_player >= 0:
        twin.apply(random_action(twin, rng, 0.5))
    assert state.to_text() == before
    assert all(pieces_in_play(s) == g.colour_total for s in (state, twin))
    g.state_from_text(before)  # still a valid position


@settings(max_examples=25, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1))
def test_same_seed_same_game_through_the_env(config, seed):
    rows, cols = config["shape"]
    options = dict(players=config["players"], variant=config["variant"], rows=rows, cols=cols)
    runs = []
    for _ in range(2):
        env = sky_envs.make("skybridge_v0", **options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                trace.append((agent, reward))
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            trace.append((agent, obs["observation"].tobytes()))
            env.step(int(legal[rng.integers(len(legal))]))
        runs.append((trace, env.unwrapped.game_state.to_text()))
    assert runs[0] == runs[1]


def test_rewards_sum_and_scores_in_infos_at_the_end():
    for players in (2, 3, 4):
        for reward in ("win", "score"):
            env = sky_envs.make("skybridge_v0", players=players, reward=reward, variant="classic")
            env.reset(seed=players)
            rng = np.random.default_rng(players)
            finals = {}
            for agent in env.agent_iter():
                obs, r, term, trunc, info = env.last()
                if term or trunc:
                    finals[agent] = (r, info)
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
            scores = finals["player_0"][1]["scores"].tolist()
            assert len(finals) == players and len(scores) == players
            rewards = [finals[f"player_{s}"][0] for s in range(players)]
            if reward == "score":
                assert sum(rewards) == pytest.approx(0.0)
                assert rewards == pytest.approx([scores[s] - (sum(scores) - scores[s]) / (players - 1) for s in range(players)])
            else:
                assert {r for r in rewards} <= {-1.0, 0.0, 1.0}
                winners = np.flatnonzero(finals["player_0"][1]["winners"]).tolist()
                assert [s for s in range(players) if rewards[s] == 1.0] == (winners if len(winners) < players else [])


def fuzz(games: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    steps = 0
    for k in range(games):
        config = {"players": (2, 3, 4)[k % 3], "variant": ("seed", "classic")[k // 3 % 2],
                  "shape": ((3, 3), (2, 2), (3, 5), (4, 4))[k // 6 % 4]}
        g = make(config)
        for state in random_states(g, rng, 1, (0.0, 0.5)[k % 2]):
            steps += 1
            if steps % 7 == 0 or state.current_player < 0:
                check_state(state)
            else:
                assert state.current_player < 0 or state.legal_mask().any()
                assert pieces_in_play(state) == g.colour_total
    return steps


def test_fuzz_quick():
    assert fuzz(48, 1) > 48 * 10


@pytest.mark.slow
def test_fuzz_long():  # about a minute
    assert fuzz(10000, 2) > 10000 * 10
