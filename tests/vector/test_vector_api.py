"""sky_envs.vector: the batched API over any registered game (the reference engine here; the
compiled engines have their own oracle tests beside their games)."""

import numpy as np
import pytest

import sky_envs
from sky_envs import vector
from sky_envs.core.state import IllegalActionError

from .oracle_support import assert_matches_aec

CASES = [("sky_scrapers_v0", {}), ("sky_scrapers_v0", {"board": "random", "lines": "hex", "players": 4, "positioning": "random"}),
         ("scala_v0", {}), ("highrise_heist_v0", {}), ("golden_rush_v0", {"mode": "teams"}),
         ("skybridge_v0", {"players": 3}), ("sky_towers_v0", {"players": 3, "max_turns": 25})]


@pytest.mark.parametrize("env_id, options", CASES)
def test_the_reference_engine_matches_the_aec_env_bit_for_bit(env_id, options):
    counts = assert_matches_aec(env_id, options, num_envs=5, steps=150, seed=3, engine="python")
    assert counts["games_ended"] > 0


def test_partial_steps_match_the_aec_env():
    assert_matches_aec("golden_rush_v0", {}, num_envs=6, steps=150, seed=4, engine="python", partial=True)


def test_max_turns_cuts_are_truncations_with_zero_rewards():
    counts = assert_matches_aec("scala_v0", {"max_turns": 6}, num_envs=4, steps=20, seed=1, engine="python")
    assert counts["games_ended"] >= 4 * 3


def test_slots_started_from_positions_restart_from_them():
    game = sky_envs.make_game("sky_scrapers_v0")
    states = [game.new_initial_state(np.random.default_rng(s)) for s in (10, 11, 12)]
    for state in states[:2]:
        while state.current_player >= 0 and len(state.legal_actions()) > 4:
            state.apply(int(state.legal_actions()[0]))
    positions = [state.to_text() for state in states]
    assert_matches_aec("sky_scrapers_v0", {}, num_envs=3, steps=60, seed=5, positions=positions, engine="python")
    venv = vector.make("sky_scrapers_v0", 3, seed=5, positions=positions)
    venv.reset()
    assert [venv.game_state(i).to_text() for i in range(3)] == positions


def test_game_state_is_a_copy_of_the_slot():
    venv = vector.make("highrise_heist_v0", 4, seed=0)
    batch = venv.reset()
    state = venv.game_state(2)
    assert np.array_equal(state.observation(state.current_player), batch.observation[2])
    state.apply(int(state.legal_actions()[0]))
    assert np.array_equal(venv.game_state(2).observation(int(batch.current_player[2])), batch.observation[2])


def test_bad_actions_name_the_slot_and_move_nothing():
    venv = vector.make("sky_scrapers_v0", 4, seed=0)
    batch = venv.reset()
    before = [venv.game_state(i).to_text() for i in range(4)]
    good = vector.random_actions(batch.action_mask, np.random.default_rng(0))
    illegal = good.copy()
    illegal[2] = int(np.flatnonzero(~batch.action_mask[2])[0])
    with pytest.raises(IllegalActionError, match=r"slot 2: action \d+ \(.*\) is illegal for player_\d: .*no game has moved"):
        venv.step(illegal)
    outside = good.copy()
    outside[1] = venv.num_actions
    with pytest.raises(IllegalActionError, match=r"slot 1: action 326 is out of range: expected 0 <= action < 326"):
        venv.step(outside)
    with pytest.raises(IllegalActionError, match="slot 3: action -1 is out of range"):
        venv.step(np.where(np.arange(4) == 3, -1, good))
    with pytest.raises(ValueError, match=r"actions must be an array of shape \(4,\), one per slot, got shape \(3,\)"):
        venv.step(good[:3])
    with pytest.raises(ValueError, match="actions must be integers, got dtype float64"):
        venv.step(good.astype(float))
    assert [venv.game_state(i).to_text() for i in range(4)] == before
    venv.step(good)


def test_bad_arguments_are_refused_clearly():
    for bad in (0, -1, 1.5, True, "8", vector.MAX_NUM_ENVS + 1):
        with pytest.raises(ValueError, match="num_envs must be an integer >= 1"):
            vector.make("scala_v0", bad)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        vector.make("scala_v0", 2, seed=-3)
    with pytest.raises(ValueError, match="engine='fast' is not valid"):
        vector.make("scala_v0", 2, engine="fast")
    with pytest.raises(ValueError, match="unknown option 'rows'"):
        vector.make("scala_v0", 2, rows=3)
    with pytest.raises(ValueError, match="unknown env id"):
        vector.make("chess_v0", 2)
    with pytest.raises(ValueError, match="positions must be a list of 2 position texts"):
        vector.make("scala_v0", 2, positions=["x"])
    with pytest.raises(ValueError, match=r"positions\[1\] is not a scala_v0 position"):
        vector.make("scala_v0", 2, positions=[sky_envs.make_game("scala_v0").new_initial_state(np.random.default_rng(0)).to_text(), "nonsense"])
    venv = vector.make("scala_v0", 2)
    with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before step\(\)"):
        venv.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="slot must be a non-negative integer and <= 1"):
        venv.game_state(2)


def test_random_actions_are_legal_and_uniform():
    mask = np.zeros((3, 10), bool)
    mask[0, [1, 4, 9]] = True
    mask[1, :] = True
    mask[2, 7] = True
    rng = np.random.default_rng(0)
    draws = np.array([vector.random_actions(mask, rng) for _ in range(3000)])
    assert mask[np.arange(3), draws].all()
    counts = np.bincount(draws[:, 0], minlength=10)[[1, 4, 9]]
    assert counts.min() > 900 and (draws[:, 2] == 7).all()
    big = np.random.default_rng(1).random((vector.env.RANDOM_ACTION_CHUNK + 5, 7)) < 0.5
    big[:, 3] = True
    chunked = vector.random_actions(big, np.random.default_rng(2))
    legal = np.flatnonzero(big)     # the one-pass draw, by hand: the chunks give the same actions
    counts = big.sum(axis=1)
    starts = np.cumsum(counts) - counts
    whole = legal[starts + (np.random.default_rng(2).random(len(big)) * counts).astype(np.int64)] % 7
    assert np.array_equal(chunked, whole)
    assert vector.random_actions(np.zeros((0, 7), bool), rng).shape == (0,)
    with pytest.raises(ValueError, match="row 1 of action_mask has no legal action"):
        vector.random_actions(np.array([[True], [False]]), rng)
    with pytest.raises(ValueError, match="action_mask must be a 2-d bool array"):
        vector.random_actions(mask.astype(np.int8), rng)


@pytest.mark.parametrize("rows, width, density", [(65, 1024, 0.01), (67, 1031, 0.3), (9, 7744, 0.0), (80, 1024, 0.9),
                                                  (1100, 7744, 0.008)])
def test_wide_masks_give_the_draws_of_flatnonzero(rows, width, density, monkeypatch):
    """Wide masks in large batches are drawn from their bits packed into 64-bit words (in
    blocks of rows, split between threads from ``WIDE_THREADS_FROM`` rows: the last case); the
    draws are those of the plain pass over ``flatnonzero`` (odd sizes, a strided view, dense
    rows, and a bool view of bytes other than 0 and 1)."""
    assert width >= vector.env.WIDE_MASK and rows * width >= vector.env.WIDE_BATCH
    if rows >= vector.env.WIDE_THREADS_FROM:
        monkeypatch.setattr(vector.env, "WIDE_BLOCK_BYTES", 1 << 20)
        assert rows > 2 * (vector.env.WIDE_BLOCK_BYTES // width)      # several blocks in each thread's run
    generator = np.random.default_rng(width)
    mask = generator.random((rows, width)) < density
    mask[np.arange(rows), generator.integers(width, size=rows)] = True          # one legal action at least
    mask[0, [0, width - 1]] = True                                              # both edges
    strided = np.repeat(mask, 2, axis=1)[:, ::2]
    odd_bytes = (mask.astype(np.uint8) * generator.integers(1, 256, size=mask.shape).astype(np.uint8)).view(bool)
    for case in (mask, strided, odd_bytes):
        counts = mask.sum(axis=1)
        starts = np.cumsum(counts) - counts
        by_hand = np.flatnonzero(mask)[starts + (np.random.default_rng(3).random(rows) * counts).astype(np.int64)]
        assert np.array_equal(vector.random_actions(case, np.random.default_rng(3)), by_hand % width)
    empty_row = mask.copy()
    empty_row[rows - 2] = False
    with pytest.raises(ValueError, match=f"row {rows - 2} of action_mask has no legal action"):
        vector.random_actions(empty_row, np.random.default_rng(3))


def test_the_batch_is_read_only_and_without_final_observations_when_asked():
    venv = vector.make("skybridge_v0", 2, seed=0, keep_final_observation=False)
    batch = venv.reset()
    assert batch.final_observation is None
    with pytest.raises(ValueError, match="read-only"):
        batch.observation[0] = 1.0


def test_where_moves_only_the_chosen_slots():
    venv = vector.make("skybridge_v0", 6, seed=2)
    twins = vector.make("skybridge_v0", 6, seed=2)
    batch, twin = venv.reset(), twins.reset()
    rng = np.random.default_rng(1)
    for turn in range(200):
        where = rng.random(6) < 0.5
        actions = vector.random_actions(batch.action_mask, rng)
        before = [venv.game_state(i).to_text() for i in range(6)]
        garbage = np.where(where, actions, -7)       # slots that wait may hold anything
        batch = venv.step(garbage, where=where)
        for slot in np.flatnonzero(~where):
            assert venv.game_state(slot).to_text() == before[slot]
            assert not batch.terminated[slot] and not batch.truncated[slot] and not batch.rewards[slot].any()
        # the same games, played one slot at a time with the plain step, end where they end
        for slot in np.flatnonzero(where):
            state = twins.game_state(slot)
            assert state.to_text() == before[slot]
        twin = twins.step(np.where(where, actions, vector.random_actions(twin.action_mask, rng)), where=where)
        assert np.array_equal(twin.observation, batch.observation) and np.array_equal(twin.terminated, batch.terminated)
    with pytest.raises(ValueError, match=r"where must be a bool array of shape \(6,\)"):
        venv.step(actions, where=np.ones(6, np.int8))
