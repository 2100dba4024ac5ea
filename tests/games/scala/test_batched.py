"""Scala's compiled batched engine (``games/scala/batched.py``) against the AEC env, bit for bit:
every option value, partial steps, ``max_turns`` cuts, and slots started from real mid-game
positions (crowded boards where the split rule bites, boards of several groups)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

import sky_envs
from sky_envs import vector
from sky_envs.games.scala import ScalaGame
from sky_envs.core.batched_kernel import SLOT_THREADS
from sky_envs.games.scala.batched import PARALLEL_FROM
from sky_envs.games.scala.kernels import moves_of
from tests.games.scala.test_rules import pos
from tests.vector.oracle_support import assert_matches_aec

RULES = ["mover_loses", "illegal"]
#: a loaded board of two mixed groups and a lone Red stone (not one group: the first move
#: settles it)
GROUPS_TEXT = pos(O="c6 d6 h6", X="c5 h5 i5 i6 f11")


def _split_bites(state) -> bool:
    """Whether the split rule decides some move of ``state``: under ``"illegal"`` it makes
    moves illegal, under ``"mover_loses"`` some move loses by it."""
    colour = state.current_player
    blue, red = state.stones
    if state.game.split_rule == "illegal":
        return len(moves_of(state.stones[colour], blue | red, colour)[1]) > len(state.legal_actions())
    for action in state.legal_actions().tolist():
        child = state.clone()
        child.apply(action)
        if child.end == "split":
            return True
    return False


@lru_cache(maxsize=None)
def mid_game_positions(rule: str, count: int, seed: int = 0) -> tuple[str, ...]:
    """``count`` texts of positions from random games (seeded) under ``rule``: after 2 to 30
    plies, every other one a position where the split rule bites."""
    game = ScalaGame(split_rule=rule)
    rng = np.random.default_rng(seed)
    texts = []
    while len(texts) < count:
        state = game.new_initial_state(rng)
        plies = int(rng.integers(2, 30))
        want_bite = len(texts) % 2 == 1
        while state.current_player >= 0:
            if state.plies >= plies and (not want_bite or _split_bites(state)):
                texts.append(state.to_text())
                break
            state.apply(int(rng.choice(state.legal_actions())))
    return tuple(texts)


def test_positions_are_crowded_mid_games_where_the_split_rule_bites():
    for rule in RULES:
        game = ScalaGame(split_rule=rule)
        states = [game.state_from_text(text) for text in mid_game_positions(rule, 6)]
        assert sum(map(_split_bites, states)) >= 3
        assert max(sum(s.score_vector()) for s in states) >= 26


@pytest.mark.parametrize("rule", RULES)
def test_random_play_matches_the_aec_env(rule):
    counts = assert_matches_aec("scala_v0", {"split_rule": rule}, num_envs=8, steps=300, seed=1, expect_compiled=True)
    assert counts["games_ended"] > 0


@pytest.mark.parametrize("rule", RULES)
def test_batches_stepped_on_several_threads_match_the_aec_env(rule):
    """From ``PARALLEL_FROM`` slots on, runs of slots are stepped on several threads."""
    num_envs = PARALLEL_FROM + 3
    assert vector.make("scala_v0", num_envs, split_rule=rule).engine._runs == min(SLOT_THREADS, num_envs)
    counts = assert_matches_aec("scala_v0", {"split_rule": rule, "max_turns": 8}, num_envs=num_envs, steps=40,
                                seed=3, expect_compiled=True, partial=True)
    assert counts["games_ended"] > num_envs


@pytest.mark.parametrize("rule", RULES)
def test_max_turns_cuts_and_partial_steps_match_the_aec_env(rule):
    counts = assert_matches_aec("scala_v0", {"split_rule": rule, "max_turns": 10}, num_envs=8, steps=200, seed=2,
                                expect_compiled=True, partial=True)
    assert counts["games_ended"] >= 8 * 5


@pytest.mark.parametrize("rule", RULES)
def test_slots_from_mid_game_positions_match_the_aec_env(rule):
    positions = list(mid_game_positions(rule, 6)) + [GROUPS_TEXT]
    counts = assert_matches_aec("scala_v0", {"split_rule": rule, "max_turns": 40}, num_envs=len(positions), steps=200,
                                seed=3, positions=positions, expect_compiled=True, partial=True)
    assert counts["games_ended"] > len(positions)


def test_max_turns_1_cuts_every_game_after_its_first_move():
    counts = assert_matches_aec("scala_v0", {"max_turns": 1}, num_envs=4, steps=12, seed=5, expect_compiled=True)
    assert counts["games_ended"] == 4 * 12


def test_without_final_observations():
    venv = vector.make("scala_v0", 4, seed=0, keep_final_observation=False, max_turns=3)
    batch = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(3):
        batch = venv.step(vector.random_actions(batch.action_mask, rng))
    assert batch.final_observation is None and batch.truncated.all() and (batch.final_player == 0).all()


@pytest.mark.parametrize("rule", RULES)
def test_get_state_and_set_state_round_trip_real_positions(rule):
    game = ScalaGame(split_rule=rule)
    texts = list(mid_game_positions(rule, 6)) + [GROUPS_TEXT]
    engine = game.batched_games(len(texts))
    engine.reset(np.arange(len(texts)))
    rng = np.random.default_rng(4)
    states = []
    for slot, text in enumerate(texts):
        state = game.state_from_text(text)
        for _ in range(int(rng.integers(1, 3))):           # plies and the last move travel too
            child = state.clone()
            child.apply(int(rng.choice(state.legal_actions())))
            state = child if child.current_player >= 0 else state
        engine.set_state(slot, state)
        states.append(state)
    for slot, state in enumerate(states):
        back = engine.get_state(slot)
        assert back.to_text() == state.to_text()
        assert (back.plies, back.last_move, back.connected) == (state.plies, state.last_move, state.connected)
        assert np.array_equal(back.legal_mask(), engine.action_mask[slot])
        assert np.array_equal(back.observation(back.current_player), engine.observation[slot])
    # stepped in the batch and one by one, the slots stay the states
    for _ in range(5):
        actions = vector.random_actions(engine.action_mask, rng)
        engine.step(actions, np.zeros(len(texts), dtype=np.int64), np.ones(len(texts), dtype=bool))
        for slot, state in enumerate(states):
            state.apply(int(actions[slot]))
            if state.current_player < 0:
                state = states[slot] = game.new_initial_state(rng)
            back = engine.get_state(slot)
            assert (back.to_text(), back.plies, back.last_move) == (state.to_text(), state.plies, state.last_move)


def test_set_state_refuses_finished_games_and_other_configurations():
    engine = ScalaGame().batched_games(2)
    engine.reset(np.arange(2))
    finished = ScalaGame().state_from_text(pos(O="f14 e13", X="f13"))
    with pytest.raises(ValueError, match="slot 1: the position is over"):
        engine.set_state(1, finished)
    with pytest.raises(ValueError, match="slot 0: the position is of .*illegal"):
        engine.set_state(0, ScalaGame(split_rule="illegal").new_initial_state(np.random.default_rng(0)))
    other = sky_envs.make_game("sky_scrapers_v0").new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="sky_scrapers_v0 position cannot go into a batch of scala_v0"):
        engine.set_state(0, other)


@pytest.mark.slow
@pytest.mark.parametrize("options", [{}, {"split_rule": "illegal"}, {"max_turns": 10},
                                     {"split_rule": "illegal", "max_turns": 25}])
@pytest.mark.parametrize("partial", [False, True])
def test_long_random_play_matches_the_aec_env(options, partial):
    counts = assert_matches_aec("scala_v0", options, num_envs=32, steps=1500, seed=7, expect_compiled=True,
                                partial=partial)
    assert counts["games_ended"] > 32


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_long_play_from_positions_matches_the_aec_env(rule):
    positions = list(mid_game_positions(rule, 24, seed=11)) + [GROUPS_TEXT]
    assert_matches_aec("scala_v0", {"split_rule": rule, "max_turns": 60}, num_envs=len(positions), steps=1500,
                       seed=9, positions=positions, expect_compiled=True, partial=True)
