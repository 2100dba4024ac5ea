"""Both sides of a self-play game as training data: the collector's learn_from_latest slots and
the per-seat rollout buffer (advantages chained along each seat's own decisions)."""

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

from sky_envs.agents.legal_actions import LegalActions
from sky_envs.core.registry import make_game
from tests.training.training_support import TINY, one_torch_thread, quiet, random_policy, tiny_config  # noqa: F401
from training.collector import SelfPlayVecEnv
from training.pool import OpponentPool
from training.seat_buffer import PerSeatRolloutBuffer
from training.selfplay import SelfPlayRun

OPTIONS = TINY["env.options"]
GAMMA, LAMBDA = 0.9, 0.8


def collector(env_id, options, games, latest, seed=3):
    game = make_game(env_id, **options)
    pool = OpponentPool(env_id, options, latest=latest, window=0, baselines=["random"], seed=seed)
    pool.set_live_policy(random_policy(game))
    return SelfPlayVecEnv(env_id, options, games, pool, seed=seed, learn_from_latest=True)


def fill(buffers, vec, steps, seed=0):
    """Play ``steps`` steps of random legal moves with random values into every buffer."""
    rng = np.random.default_rng(seed)
    observations, starts = vec.reset(), np.ones(vec.num_envs, dtype=bool)
    for _ in range(steps):
        masks = vec.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        values = torch.tensor(rng.normal(size=vec.num_envs), dtype=torch.float32)
        new_observations, rewards, dones, infos = vec.step(actions)
        for buffer in buffers:
            buffer.add(observations, actions.reshape(-1, 1), rewards, starts, values, torch.zeros(vec.num_envs),
                       action_masks=masks)
        observations, starts = new_observations, dones
    last_values = torch.tensor(rng.normal(size=vec.num_envs), dtype=torch.float32)
    for buffer in buffers:
        buffer.compute_returns_and_advantage(last_values, starts)
    return last_values.numpy(), starts


def new_buffer(kind, vec, steps):
    buffer = kind(steps, vec.observation_space, vec.action_space, gamma=GAMMA, gae_lambda=LAMBDA, n_envs=vec.num_envs)
    if kind is PerSeatRolloutBuffer:
        buffer.attach(vec)
    return buffer


def reference_advantages(buffer, last_values, last_dones, now):
    """GAE along each seat's decisions, one episode and seat at a time, in plain loops."""
    steps, slots = buffer.values.shape
    ended = np.zeros((steps, slots), dtype=bool)
    ended[:-1], ended[-1] = buffer.episode_starts[1:], last_dones
    advantages = np.full((steps, slots), np.nan)
    for i in range(slots):
        start = 0
        for end in range(steps):
            if not (ended[end, i] or end == steps - 1):
                continue
            for seat in set(buffer.movers[start:end + 1, i].tolist()):
                own = [t for t in range(start, end + 1) if buffer.movers[t, i] == seat]
                last = own[-1]
                if ended[end, i]:
                    outcome = buffer.rewards[last, i] if last == end else buffer.outcomes[end, i, seat]
                    advantages[last, i] = 0.0 if np.isnan(outcome) else outcome - buffer.values[last, i]
                elif seat == now[i]:
                    advantages[last, i] = buffer.rewards[last, i] + GAMMA * last_values[i] - buffer.values[last, i]
                else:  # its next decision lies beyond the rollout
                    advantages[last, i] = 0.0
                for t, after in zip(reversed(own[:-1]), reversed(own[1:])):
                    delta = buffer.rewards[t, i] + GAMMA * buffer.values[after, i] - buffer.values[t, i]
                    advantages[t, i] = delta + GAMMA * LAMBDA * advantages[after, i]
            start = end + 1
    return advantages


@pytest.mark.parametrize("env_id, options", [("sky_scrapers_v0", OPTIONS), ("scala_v0", {"max_turns": 9}),
                                             ("golden_rush_v0", {"mode": "teams"})],
                         ids=["sky_scrapers", "scala_cut_at_9_plies", "golden_rush"])
def test_advantages_follow_each_seat_through_its_own_decisions(env_id, options):
    vec = collector(env_id, options, 6, latest=0.6)
    buffer = new_buffer(PerSeatRolloutBuffer, vec, 120)
    last_values, last_dones = fill([buffer], vec, 120)
    assert len(set(buffer.movers.flatten().tolist())) == vec.num_players  # every seat was played by the learner
    ended = np.concatenate([buffer.episode_starts[1:], [last_dones]]).astype(bool)
    cut = np.isnan(buffer.outcomes[ended]).all(axis=1)
    assert ended.sum() >= 6 and (cut.all() if "max_turns" in options else not cut.any())
    expected = reference_advantages(buffer, last_values, last_dones, vec.current_seats())
    np.testing.assert_allclose(buffer.advantages, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(buffer.returns, buffer.advantages + buffer.values, rtol=1e-6)


def test_with_one_learner_seat_per_game_the_advantages_are_sb3s():
    vec = collector("sky_scrapers_v0", OPTIONS, 5, latest=0.0)
    plain, per_seat = new_buffer(MaskableRolloutBuffer, vec, 48), new_buffer(PerSeatRolloutBuffer, vec, 48)
    fill([plain, per_seat], vec, 48)
    assert per_seat.episode_starts[1:].sum() >= 5  # games ended inside the rollout
    np.testing.assert_allclose(per_seat.advantages, plain.advantages, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(per_seat.returns, plain.returns, rtol=1e-5, atol=1e-6)
    # the masks, kept as bool (a quarter of SB3's float32), come out of the minibatches as SB3's
    assert per_seat.action_masks.dtype == bool and plain.action_masks.dtype == np.float32
    recorded = per_seat.observations, per_seat.action_masks
    np.random.seed(7)
    ours = next(per_seat.get(batch_size=32))
    np.random.seed(7)
    theirs = next(plain.get(batch_size=32))
    assert ours.action_masks.dtype == torch.bool and ours.action_masks.any(dim=1).all()
    assert torch.equal(ours.action_masks, theirs.action_masks.bool())
    assert torch.equal(ours.actions, theirs.actions)
    assert torch.equal(ours.observations, theirs.observations)
    # laid out slot by slot, the rollout is flattened for the update without a copy
    assert np.shares_memory(per_seat.observations, recorded[0]) and np.shares_memory(per_seat.action_masks, recorded[1])
    # the next rollout is written into the same memory (no fresh pages to fault in), and reads
    # as a fresh buffer's would
    per_seat.reset()
    fresh = new_buffer(PerSeatRolloutBuffer, vec, 48)
    assert np.shares_memory(per_seat.observations, recorded[0]) and np.shares_memory(per_seat.action_masks, recorded[1])
    fill([per_seat, fresh], vec, 48, seed=1)
    np.random.seed(8)
    again = list(per_seat.get(batch_size=48))
    np.random.seed(8)
    assert all(torch.equal(x, y) for a, b in zip(again, fresh.get(batch_size=48)) for x, y in zip(a, b))


def test_minibatches_of_a_wide_space_list_their_legal_actions_and_train_to_the_same_weights(tmp_path, monkeypatch):
    """``legal_lists``: each minibatch carries its rows' legal actions (the rollout's masks
    scanned once) instead of its masks; a Scala run's weights are the same bit for bit."""
    vec = collector("scala_v0", {}, 4, latest=1.0)
    masked, listed = new_buffer(PerSeatRolloutBuffer, vec, 24), new_buffer(PerSeatRolloutBuffer, vec, 24)
    listed.attach(vec, legal_lists=True)
    fill([masked, listed], vec, 24)
    np.random.seed(3)
    theirs = list(masked.get(batch_size=40))
    np.random.seed(3)
    ours = list(listed.get(batch_size=40))
    assert len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        assert isinstance(a.action_masks, LegalActions) and not isinstance(b.action_masks, LegalActions)
        assert all(torch.equal(x, y) for x, y in zip(a.action_masks, LegalActions.of_masks(b.action_masks, len(b.actions))))
        assert all(torch.equal(x, y) for x, y in zip(a[:-1], b[:-1]))

    config = tiny_config(**{"env.id": "scala_v0", "env.options": {}, "train.timesteps": 128})
    weights = []
    for name in ("listed", "masked"):
        if name == "masked":   # the same run with the minibatches' masks handed on, as in a narrow space
            attach = PerSeatRolloutBuffer.attach
            monkeypatch.setattr(PerSeatRolloutBuffer, "attach", lambda self, collector, legal_lists=False:
                                attach(self, collector, legal_lists=False))
        run = SelfPlayRun(config, tmp_path / name, progress=False, log=quiet)
        run.train()
        assert run.model.rollout_buffer.legal_lists == (name == "listed")
        weights.append([p.detach().clone() for p in run.model.policy.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*weights))


def test_a_self_play_slot_offers_every_decision_of_its_game_from_the_movers_side():
    vec = collector("sky_scrapers_v0", OPTIONS, 4, latest=1.0)
    observations = vec.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        for i, state in enumerate(vec.states):  # every seat is the learner's: no opponent ever moved
            assert vec.opponents[i] == [None, None] and state.current_player == vec.current_seats()[i]
            assert np.array_equal(observations[i], state.observation(state.current_player))
        movers_before = vec.current_seats()
        finals = [state.clone() for state in vec.states]
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in vec.action_masks()])
        observations, rewards, dones, infos = vec.step(actions)
        movers, outcomes = vec.decision_record()
        assert np.array_equal(movers, movers_before)
        for i in np.flatnonzero(dones):
            ended += 1
            finals[i].apply(int(actions[i]))
            assert np.array_equal(outcomes[i], finals[i].returns()) and rewards[i] == outcomes[i][movers[i]]
            assert infos[i]["learner_seats"] == [0, 1]
            assert np.array_equal(infos[i]["terminal_observation"], finals[i].observation(int(movers[i])))
        assert np.isnan(outcomes[~dones]).all()
    assert ended >= 4


def test_a_run_learning_from_both_seats_trains_and_resumes(tmp_path):
    config = tiny_config(**{"pool.latest": 1.0, "train.timesteps": 128})
    run = SelfPlayRun(config, tmp_path / "run", progress=False, log=quiet)
    run.train()
    assert isinstance(run.model.rollout_buffer, PerSeatRolloutBuffer)
    assert set(run.model.rollout_buffer.movers.flatten().tolist()) == {0, 1}
    config["train"]["timesteps"] = 256
    resumed = SelfPlayRun(config, tmp_path / "run", progress=False, log=quiet)
    final = resumed.train(resume=True)
    assert final.is_file() and resumed.steps_done >= 256
    assert isinstance(resumed.model.rollout_buffer, PerSeatRolloutBuffer)


def test_the_buffer_refuses_to_record_without_a_collector_or_masks():
    vec = collector("sky_scrapers_v0", OPTIONS, 2, latest=1.0)
    buffer = PerSeatRolloutBuffer(4, vec.observation_space, vec.action_space, n_envs=2)
    observations = vec.reset()
    with pytest.raises(RuntimeError, match="attach"):
        buffer.add(observations, np.zeros((2, 1)), np.zeros(2), np.ones(2), torch.zeros(2), torch.zeros(2),
                   action_masks=vec.action_masks())
    buffer.attach(vec)
    with pytest.raises(RuntimeError, match="needs the step's action_masks"):
        buffer.add(observations, np.zeros((2, 1)), np.zeros(2), np.ones(2), torch.zeros(2), torch.zeros(2))
