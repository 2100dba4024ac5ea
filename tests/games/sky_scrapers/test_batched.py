"""The compiled batched engine (``sky_scrapers/batched.py``) against the AEC env, bit for bit,
for every kind of option; states in and out of slots; the hook that selects the engine."""

import numpy as np
import pytest

import sky_envs
from sky_envs import vector
from sky_envs.games.sky_scrapers import SkyScrapersGame
from tests.vector.oracle_support import assert_matches_aec, assert_states_round_trip

ENV = "sky_scrapers_v0"
HOLED_MASK = "..#../...../.#.../...../..#.."      # holes; connected along orthogonal lines
CASES = {
    "default": {},
    "6x6 random positioning (the shipped config)": {"board": "random", "rows": 6, "cols": 6, "positioning": "random"},
    "random boards, hex lines, 4 players": {"board": "random", "lines": "hex", "players": 4, "positioning": "random"},
    "strategic 4x4, 4 players, random first": {"board": "square", "rows": 4, "cols": 4, "players": 4,
                                               "positioning": "strategic", "first": "random"},
    "orthogonal lines on a mask board": {"board": HOLED_MASK, "lines": "orthogonal", "positioning": "random"},
    "8x8 four players standard": {"players": 4},
    "1x4 board": {"board": "square", "rows": 1, "cols": 4},
    "7x1 column, random positioning, 2 tiles each": {"board": "square", "rows": 7, "cols": 1, "positioning": "random",
                                                     "tiles_per_player": 2},
    "1x64 row, orthogonal lines": {"board": "square", "rows": 1, "cols": 64, "lines": "orthogonal"},
    "small max_turns": {"max_turns": 7},
    "tiles_per_player, cells and strategic on random boards": {"board": "random", "rows": 5, "cols": 7,
                                                               "cells": (12, 20), "positioning": "strategic",
                                                               "tiles_per_player": 4},
    "mask board, standard positioning": {"board": "..../.##./...."},
    "hex mask, strategic, sky scrapers of 2": {"board": "...../...../.....", "lines": "hex",
                                               "positioning": "strategic", "skyscraper_height": 2, "max_turns": 20},
}


@pytest.mark.parametrize("options", CASES.values(), ids=CASES.keys())
def test_the_compiled_engine_matches_the_aec_env(options):
    counts = assert_matches_aec(ENV, options, num_envs=6, steps=300, seed=11, expect_compiled=True)
    assert counts["games_ended"] >= 6


@pytest.mark.parametrize("options", [CASES["6x6 random positioning (the shipped config)"],
                                     CASES["strategic 4x4, 4 players, random first"]])
def test_partial_steps_match_the_aec_env(options):
    assert_matches_aec(ENV, options, num_envs=6, steps=160, seed=12, expect_compiled=True, partial=True)


def test_max_turns_cuts_end_games_as_truncations():
    counts = assert_matches_aec(ENV, {"max_turns": 3}, num_envs=4, steps=12, seed=2, expect_compiled=True)
    assert counts["games_ended"] == 4 * 4


def mid_game_positions(options, count, seed):
    """Position texts of games played part way at random (every phase of the options)."""
    game = sky_envs.make_game(ENV, **options)
    rng = np.random.default_rng(seed)
    texts = []
    for k in range(count):
        state = game.new_initial_state(np.random.default_rng(seed + k))
        for _ in range(k * 3):
            if state.current_player < 0:
                break
            state.apply(int(rng.choice(state.legal_actions())))
        if state.current_player >= 0:
            texts.append(state.to_text())
    return texts


@pytest.mark.parametrize("options", [CASES["default"], CASES["random boards, hex lines, 4 players"],
                                     CASES["strategic 4x4, 4 players, random first"],
                                     CASES["6x6 random positioning (the shipped config)"]])
def test_slots_started_from_mid_game_positions(options):
    positions = mid_game_positions(options, 6, seed=30)
    assert_matches_aec(ENV, options, num_envs=len(positions), steps=80, seed=5, positions=positions,
                       expect_compiled=True)


@pytest.mark.parametrize("options", [CASES["6x6 random positioning (the shipped config)"],
                                     CASES["strategic 4x4, 4 players, random first"],
                                     CASES["8x8 four players standard"]])
def test_game_states_round_trip_and_agree_with_the_reference_engine(options):
    assert_states_round_trip(ENV, options, num_envs=5, steps=40, seed=21)


def test_a_game_over_before_its_first_move_is_refused_like_the_reference_engine():
    options = {"players": 4, "positioning": "random", "tiles_per_player": 1}   # 4 lone tiles on 8x8
    game = sky_envs.make_game(ENV, **options)
    seed = next(s for s in range(200) if game.new_initial_state(np.random.default_rng(s)).current_player < 0)
    for engine in ("auto", "python"):
        with pytest.raises(ValueError, match=f"seed {seed} gives a game that is over before its first move"):
            vector.make(ENV, 1, seed=seed, engine=engine, **options).reset()


def test_positions_of_another_configuration_are_refused():
    batch = SkyScrapersGame().batched_games(2)
    other = SkyScrapersGame(board="square", rows=5, cols=5, positioning="random")
    with pytest.raises(ValueError, match="rows=5"):
        batch.set_state(0, other.new_initial_state(np.random.default_rng(0)))


@pytest.mark.slow
@pytest.mark.parametrize("options", CASES.values(), ids=CASES.keys())
def test_long_oracle_campaign(options):
    for seed in range(3):
        assert_matches_aec(ENV, options, num_envs=16, steps=1500, seed=100 + seed, expect_compiled=True,
                           partial=seed == 1)


@pytest.mark.slow
@pytest.mark.parametrize("options", [
    {"board": "square", "rows": 64, "cols": 64, "players": 4, "positioning": "random", "max_turns": 15},
    {"board": "random", "rows": 64, "cols": 64, "lines": "hex", "positioning": "strategic", "max_turns": 40},
    {"board": "random", "rows": 64, "cols": 3, "cells": (2, 192), "positioning": "random", "max_turns": 30},
])
def test_the_largest_boards(options):
    counts = assert_matches_aec(ENV, options, num_envs=2, steps=60, seed=7, expect_compiled=True)
    assert counts["games_ended"] >= 2
