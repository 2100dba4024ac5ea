"""Skybridge's compiled batched engine (``batched.py``) held to the AEC env bit for bit.

The oracle tests (``tests/vector/oracle_support.py``) step a VectorEnv on the compiled
engine beside one AEC env per slot and compare observations, masks, seats to move,
rewards, ends and final observations after every step, over every option kind: 2, 3 and
4 seats, both variants, the smallest and larger boards, odd piece counts, score rewards,
``max_turns`` cuts, partial steps and slots started from mid-game positions.
"""

import numpy as np
import pytest

import sky_envs
from sky_envs import vector
from sky_envs.games.skybridge.batched import MAX_STATE_BYTES, SkybridgeBatch, state_bytes
from tests.vector.oracle_support import assert_matches_aec, assert_states_round_trip

ENV = "skybridge_v0"

CASES = [
    {},
    {"players": 3, "reward": "score"},
    {"players": 4},
    {"variant": "classic"},
    {"variant": "classic", "players": 3},
    {"variant": "classic", "players": 4, "reward": "score"},
    {"rows": 2, "cols": 2},
    {"rows": 5, "cols": 6, "variant": "classic", "bridges": 3, "roofs": 4},
    {"rows": 4, "cols": 3, "players": 4, "tall": 0, "short": 6, "neutral_tall": 0, "reward": "score"},
    {"rows": 2, "cols": 4, "players": 3, "tall": 2, "short": 5, "bridges": 2, "roofs": 1, "neutral_tall": 0,
     "variant": "classic"},
]


def _ids(options):
    return "-".join(f"{k}={v}" for k, v in options.items()) or "default"


@pytest.mark.parametrize("options", CASES, ids=_ids)
def test_the_compiled_engine_matches_the_aec_env(options):
    counts = assert_matches_aec(ENV, options, num_envs=6, steps=200, seed=7, expect_compiled=True)
    assert counts["games_ended"] >= 6


@pytest.mark.parametrize("options", [{"players": 3}, {"variant": "classic", "players": 4}], ids=_ids)
def test_partial_steps_match_the_aec_env(options):
    counts = assert_matches_aec(ENV, options, num_envs=6, steps=150, seed=11, expect_compiled=True, partial=True)
    assert counts["games_ended"] >= 6


@pytest.mark.parametrize("options", [{"max_turns": 5}, {"max_turns": 9, "players": 3, "variant": "classic"}], ids=_ids)
def test_max_turns_cuts_match_the_aec_env(options):
    counts = assert_matches_aec(ENV, options, num_envs=4, steps=40, seed=5, expect_compiled=True)
    assert counts["games_ended"] >= 4 * 4


def mid_game_positions(options: dict, count: int, seed: int) -> list[str]:
    """Position texts from random games of the readable engine, 3 to 30 placements in."""
    game = sky_envs.make_game(ENV, **options)
    rng = np.random.default_rng(seed)
    texts = []
    while len(texts) < count:
        state = game.new_initial_state(np.random.default_rng(int(rng.integers(1 << 30))))
        for _ in range(int(rng.integers(3, 30))):
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(legal.size)]))
            if state.current_player < 0:
                break
        else:
            texts.append(state.to_text())
    return texts


@pytest.mark.parametrize("options", [{}, {"variant": "classic", "players": 3}], ids=_ids)
def test_slots_started_from_mid_game_positions_match_the_aec_env(options):
    positions = mid_game_positions(options, 5, seed=3)
    assert_matches_aec(ENV, options, num_envs=5, steps=80, seed=2, positions=positions, expect_compiled=True)


@pytest.mark.parametrize("options", [{"players": 2}, {"variant": "classic", "players": 4}], ids=_ids)
def test_game_states_round_trip_and_follow_the_reference_engine(options):
    assert_states_round_trip(ENV, options, num_envs=5, steps=60, seed=9, same_generator=True)


def test_game_state_gives_the_generator_the_game_was_started_with():
    venv = vector.make(ENV, 3, seed=40)
    venv.reset()
    expected = np.random.default_rng(41).bit_generator.state
    assert venv.game_state(1).rng.bit_generator.state == expected


def test_set_state_refuses_positions_it_cannot_hold():
    venv = vector.make(ENV, 2, seed=0)
    venv.reset()
    engine = venv.engine
    other = sky_envs.make_game(ENV, rows=4).new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="cannot go into a batch"):
        engine.set_state(0, other)
    state = venv.game_state(0)
    while state.current_player >= 0:
        state.apply(int(state.legal_actions()[0]))
    with pytest.raises(ValueError, match="slot 1: the position is over"):
        engine.set_state(1, state)


def test_without_final_observations_the_game_still_plays_the_same():
    kept = vector.make(ENV, 4, seed=1)
    lean = vector.make(ENV, 4, seed=1, keep_final_observation=False)
    a, b = kept.reset(), lean.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(80):
        actions = vector.random_actions(a.action_mask, rng)
        a, b = kept.step(actions), lean.step(actions)
        assert b.final_observation is None
        for name in ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        ended += int(a.terminated.sum())
    assert ended > 0


def test_configurations_too_big_for_arrays_are_left_to_the_reference_engine():
    huge = sky_envs.make_game(ENV, variant="classic", rows=64, cols=64, tall=1000)
    assert state_bytes(huge) > MAX_STATE_BYTES and huge.batched_games(2) is None
    assert isinstance(sky_envs.make_game(ENV, rows=64, cols=64, tall=1000).batched_games(1), SkybridgeBatch)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", ["seed", "classic"])
def test_long_campaign_over_random_options(players, variant):
    rng = np.random.default_rng(100 * players + len(variant))
    for round_ in range(4):
        options = {"players": players, "variant": variant, "rows": int(rng.integers(2, 7)),
                   "cols": int(rng.integers(2, 7)), "tall": int(rng.integers(3, 6)), "short": int(rng.integers(3, 6)),
                   "bridges": int(rng.integers(0, 4)), "roofs": int(rng.integers(0, 4)),
                   "reward": ["win", "score"][round_ % 2]}
        if round_ == 3:
            options["max_turns"] = int(rng.integers(3, 20))
        assert_matches_aec(ENV, options, num_envs=16, steps=600, seed=round_, expect_compiled=True,
                           partial=bool(round_ % 2))
