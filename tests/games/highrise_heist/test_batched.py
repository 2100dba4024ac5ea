"""The compiled batched engine of Highrise Heist and Golden Rush (``batched.py``) against
the readable engine, bit for bit, through the oracle harness of ``sky_envs.vector``."""

import numpy as np
import pytest

import sky_envs
from sky_envs import vector
from tests.vector.oracle_support import assert_matches_aec

HEIST, RUSH = "highrise_heist_v0", "golden_rush_v0"
RUSH_OPTIONS = [{"mode": mode, "reward": reward} for mode in ("ffa", "teams") for reward in ("win", "score")]


def mid_game_positions(env_id: str, count: int, seed: int, **options) -> list[str]:
    """Position texts from seeded random games: every kind of moment the kernel must load
    (both phases, a stand closed by this turn's transfer, the eligibility queue)."""
    game = sky_envs.make_game(env_id, **options)
    rng = np.random.default_rng(seed)
    wanted = [lambda s: s.phase == 1, lambda s: s.phase == 0, lambda s: s.closed_this_turn,
              lambda s: any(len(c) == 11 for c in s.stands), lambda s: bool(getattr(s, "queue", [1]))]
    positions = []
    while len(positions) < count:
        state = game.new_initial_state(np.random.default_rng(int(rng.integers(1 << 30))))
        want = wanted[len(positions) % len(wanted)]
        moments = []
        while state.current_player >= 0:
            if want(state):
                moments.append(state.to_text())
            state.apply(int(rng.choice(state.legal_actions())))
        if moments:
            positions.append(moments[int(rng.integers(len(moments)))])
    return positions


@pytest.mark.parametrize("env_id, options", [(HEIST, {}), *[(RUSH, options) for options in RUSH_OPTIONS]])
def test_the_compiled_engine_matches_the_aec_env(env_id, options):
    counts = assert_matches_aec(env_id, options, num_envs=6, steps=250, seed=11, expect_compiled=True)
    assert counts["games_ended"] >= 6


@pytest.mark.parametrize("env_id, options", [(HEIST, {"max_turns": 7}), (RUSH, {"max_turns": 5, "mode": "teams"})])
def test_max_turns_cuts_match(env_id, options):
    counts = assert_matches_aec(env_id, options, num_envs=5, steps=60, seed=2, expect_compiled=True)
    assert counts["games_ended"] >= 10


@pytest.mark.parametrize("env_id, options", [(HEIST, {}), (RUSH, {"reward": "score"})])
def test_partial_steps_match(env_id, options):
    assert_matches_aec(env_id, options, num_envs=6, steps=200, seed=5, expect_compiled=True, partial=True)


@pytest.mark.parametrize("env_id, options", [(HEIST, {}), (RUSH, {"mode": "teams"})])
def test_slots_started_from_mid_game_positions_match(env_id, options):
    positions = mid_game_positions(env_id, 10, seed=3, **options)
    counts = assert_matches_aec(env_id, options, num_envs=10, steps=120, seed=7, positions=positions,
                                expect_compiled=True)
    assert counts["games_ended"] >= 10


@pytest.mark.parametrize("env_id", [HEIST, RUSH])
def test_positions_round_trip_through_slots(env_id):
    positions = mid_game_positions(env_id, 8, seed=4)
    venv = vector.make(env_id, 8, seed=0, positions=positions)
    batch = venv.reset()
    game = venv.game
    for slot, text in enumerate(positions):
        state = venv.game_state(slot)
        assert state.to_text() == text
        expected = game.state_from_text(text)
        assert np.array_equal(batch.observation[slot], expected.observation(expected.current_player))
        assert np.array_equal(batch.action_mask[slot], expected.legal_mask())
    for _ in range(5):  # positions read back after play are the slots' positions
        batch = venv.step(vector.random_actions(batch.action_mask, np.random.default_rng(1)))
    engine = venv.engine
    for slot in range(8):
        state = engine.get_state(slot)
        engine.set_state(slot, state)
        assert engine.get_state(slot).to_text() == state.to_text()
        assert np.array_equal(batch.observation[slot], state.observation(state.current_player))


def test_without_final_observations_the_games_are_the_same():
    kept = vector.make(RUSH, 4, seed=9)
    lean = vector.make(RUSH, 4, seed=9, keep_final_observation=False)
    a, b = kept.reset(), lean.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        actions = vector.random_actions(a.action_mask, rng)
        a, b = kept.step(actions), lean.step(actions)
        assert b.final_observation is None
        assert np.array_equal(a.observation, b.observation) and np.array_equal(a.rewards, b.rewards)
        ended += int(a.terminated.sum())
    assert ended >= 4


def test_set_state_refuses_other_games_and_finished_positions():
    engine = vector.make(HEIST, 2).engine
    rush_state = sky_envs.make_game(RUSH).new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="a golden_rush_v0 position cannot go into a batch of highrise_heist_v0"):
        engine.set_state(0, rush_state)
    state = sky_envs.make_game(HEIST).new_initial_state(np.random.default_rng(0))
    while state.current_player >= 0:
        state.apply(int(state.legal_actions()[0]))
    with pytest.raises(ValueError, match="slot 1: the position is over"):
        engine.set_state(1, state)


@pytest.mark.slow
@pytest.mark.parametrize("env_id, options", [(HEIST, {}), (HEIST, {"max_turns": 30}),
                                             *[(RUSH, options) for options in RUSH_OPTIONS]])
def test_long_oracle_campaign(env_id, options):
    for seed in range(3):
        assert_matches_aec(env_id, options, num_envs=16, steps=1500, seed=100 + seed, expect_compiled=True,
                           partial=seed == 1)
    positions = mid_game_positions(env_id, 16, seed=8, **options)
    assert_matches_aec(env_id, options, num_envs=16, steps=600, seed=12, positions=positions,
                       expect_compiled=True)
