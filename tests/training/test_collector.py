"""The batched self-play collector: the same games as the one-game-at-a-time single-agent view,
legal opponents, balanced seats, and the multi-process version playing the same games."""

import numpy as np
import pytest

from sky_envs import vector
from sky_envs.agents import Agent, make_agent
from sky_envs.core.registry import make_game
from sky_envs.gym_env import SingleAgentEnv
from tests.training.training_support import SMALL_NETWORK, TINY, one_torch_thread, random_policy  # noqa: F401 (an autouse fixture)
from training.actors import PolicyActor, actor_for, advance, advance_slots
from training.collector import SelfPlayVecEnv, local_collector
from training.pool import OpponentPool
from training.workers import ProcessCollector, make_collector

OPTIONS = TINY["env.options"]


class ObservationRule(Agent):
    """A deterministic opponent: the legal action picked by the observation's sum."""

    name = "rule"

    def act(self, observation, state=None):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[int(observation["observation"].sum() * 7) % legal.size])


def learner_actions(observations, masks):
    """A deterministic learner: the same rule, per game."""
    return np.array([np.flatnonzero(mask)[int(obs.sum() * 3) % mask.sum()] for obs, mask in zip(observations, masks)])


@pytest.mark.parametrize("env_id, options", [("sky_scrapers_v0", OPTIONS), ("golden_rush_v0", {"mode": "teams"}),
                                             ("skybridge_v0", {})], ids=["sky_scrapers", "golden_rush", "skybridge"])
def test_the_batched_collector_plays_the_games_of_the_single_agent_view(env_id, options):
    pool = OpponentPool(env_id, options, latest=0.0, window=0, baselines=[ObservationRule()])
    vec = SelfPlayVecEnv(env_id, options, 5, pool, seed=11)

    def single(i):
        env = SingleAgentEnv(env_id, opponent=ObservationRule(), seat=int(vec.seats[i]), **options)
        observation, info = env.reset(seed=vec.game_seed(i))
        return env, observation, info["action_mask"]

    observations = vec.reset()
    singles = [single(i) for i in range(vec.num_envs)]
    for i, (_, observation, mask) in enumerate(singles):
        assert np.array_equal(observations[i], observation) and np.array_equal(vec.action_masks()[i], mask)
    episodes = 0
    for _ in range(60):
        actions = learner_actions(observations, vec.action_masks())
        observations, rewards, dones, infos = vec.step(actions)
        for i, (env, _, _) in enumerate(singles):
            observation, reward, terminated, truncated, info = env.step(int(actions[i]))
            assert rewards[i] == reward and dones[i] == (terminated or truncated)
            if dones[i]:
                episodes += 1
                assert np.array_equal(infos[i]["terminal_observation"], observation)
                assert infos[i]["TimeLimit.truncated"] == truncated and infos[i]["episode"]["r"] == reward
                singles[i] = single(i)
                _, observation, info["action_mask"] = singles[i]
            assert np.array_equal(observations[i], observation)
            assert np.array_equal(vec.action_masks()[i], info["action_mask"])
    assert episodes >= vec.num_envs  # every game ended and was dealt again at least once


def test_seats_rotate_so_every_seat_gets_the_same_share():
    pool = OpponentPool("golden_rush_v0", {"mode": "teams"}, latest=0.0, window=0, baselines=["random"])
    vec = SelfPlayVecEnv("golden_rush_v0", {"mode": "teams"}, 6, pool, seed=2)
    observations = vec.reset()
    seats = [[int(s)] for s in vec.seats]
    while min(len(s) for s in seats) < 8:
        _, _, dones, infos = vec.step(learner_actions(observations, vec.action_masks()))
        observations = _
        for i in np.flatnonzero(dones):
            assert infos[i]["seat"] == seats[i][-1]
            seats[i].append(int(vec.seats[i]))
    for i, history in enumerate(seats):
        assert history[:8] == [(i + k) % 4 for k in range(8)]  # slot i starts at seat i, then the next seat
    assert np.bincount([s for h in seats for s in h[:8]], minlength=4).tolist() == [12, 12, 12, 12]


def test_advance_batches_one_call_per_actor_per_round():
    class Counting(PolicyActor):
        def act(self, states):
            self.sizes.append(len(states))
            return super().act(states)

    game = make_game("sky_scrapers_v0", **OPTIONS)
    actor = Counting(random_policy(game), seed=0)
    actor.sizes = []
    states = [game.new_initial_state(np.random.default_rng(g)) for g in range(16)]
    advance(states, range(16), lambda g, seat: actor)
    assert all(state.current_player < 0 for state in states)
    assert actor.sizes[0] == 16 and len(actor.sizes) <= max(s.turns for s in states)


@pytest.mark.parametrize("env_id, options", [("sky_scrapers_v0", OPTIONS), ("sky_towers_v0", {"players": 3}),
                                             ("golden_rush_v0", {"mode": "teams", "reward": "score"})])
def test_advance_slots_plays_on_the_vector_engine_what_advance_plays_on_states(env_id, options):
    """Policies (sampling), random and greedy actors, seats mixed: the same moves and draws."""
    game = make_game(env_id, **options)
    players, games = game.num_players, 12

    def actors():
        return [PolicyActor(random_policy(game), seed=1), actor_for(make_agent("random", seed=2), seed=2),
                actor_for(make_agent("greedy", seed=3), seed=3)]

    def actor_of(table):
        return lambda g, seat: table[(g + seat) % 3]

    on_states, on_slots = actors(), actors()
    states = [game.new_initial_state(np.random.default_rng(40 + g)) for g in range(games)]
    advance(states, range(games), actor_of(on_states))
    venv = vector.make(env_id, games, seed=40, keep_final_observation=False, **options)
    venv.reset()
    returns = advance_slots(venv, actor_of(on_slots))
    expected = [state.returns() if state.is_terminal() else np.zeros(players) for state in states]
    np.testing.assert_allclose(returns, np.array(expected), rtol=1e-6)
    assert sum(state.is_terminal() for state in states) >= games // 2
    generators = [lambda actor: actor.rng, lambda actor: actor.rng, lambda actor: actor.agent.rng]
    for rng_of, ours, theirs in zip(generators, on_slots, on_states):   # the same draws, as many
        assert rng_of(ours).bit_generator.state == rng_of(theirs).bit_generator.state


def test_worker_processes_play_the_games_one_process_would():
    pool = {"latest": 0.5, "window": 0, "baselines": ["random", "greedy"], "learn_from_latest": True}
    assert isinstance(make_collector("sky_scrapers_v0", OPTIONS, 3, pool, seed=5), SelfPlayVecEnv)
    vec = make_collector("sky_scrapers_v0", OPTIONS, 6, pool, seed=5, processes=2)
    assert isinstance(vec, ProcessCollector)
    try:
        seeds = np.random.SeedSequence(5).generate_state(2)
        blocks = [local_collector("sky_scrapers_v0", OPTIONS, 3, pool, int(seeds[0]), first_slot=0),
                  local_collector("sky_scrapers_v0", OPTIONS, 3, pool, int(seeds[1]), first_slot=3)]
        live = random_policy(make_game("sky_scrapers_v0", **OPTIONS))  # its seats are the learner's: it never moves
        for collector in (vec, *blocks):
            collector.set_live_policy(live)
        observations = vec.reset()
        assert np.array_equal(observations, np.concatenate([b.reset() for b in blocks]))
        for _ in range(40):
            actions = learner_actions(observations, vec.action_masks())
            observations, rewards, dones, infos = vec.step(actions)
            expected = [b.step(a) for b, a in zip(blocks, np.split(actions, 2))]
            assert np.array_equal(observations, np.concatenate([e[0] for e in expected]))
            assert np.array_equal(rewards, np.concatenate([e[1] for e in expected]))
            assert np.array_equal(vec.action_masks(), np.concatenate([b.action_masks() for b in blocks]))
            assert [i.get("seat") for i in infos] == [i.get("seat") for e in expected for i in e[3]]
            assert np.array_equal(vec.current_seats(), np.concatenate([b.current_seats() for b in blocks]))
            for ours, theirs in zip(vec.decision_record(), zip(*[b.decision_record() for b in blocks])):
                np.testing.assert_array_equal(ours, np.concatenate(theirs))
    finally:
        vec.close()


def test_the_masks_handed_out_are_read_only_and_stay_those_of_their_step():
    pool = {"latest": 1.0, "window": 0, "baselines": [], "learn_from_latest": True}
    vec = local_collector("scala_v0", {}, 3, pool, seed=2)
    vec.set_live_policy(random_policy(make_game("scala_v0")))
    vec.reset()
    masks = vec.action_masks()
    kept = masks.copy()
    with pytest.raises(ValueError, match="read-only"):
        masks[0, 0] = True
    vec.step(np.array([np.flatnonzero(mask)[0] for mask in masks]))
    assert np.array_equal(masks, kept) and not np.array_equal(vec.action_masks(), kept)


def test_the_pool_gives_every_kind_of_member(tmp_path):
    game = make_game("sky_scrapers_v0", **OPTIONS)
    pool = OpponentPool("sky_scrapers_v0", OPTIONS, latest=0.5, window=2, baselines=["random", "greedy"], seed=0)
    pool.set_live_policy(random_policy(game))
    from sky_envs.agents import save_checkpoint
    from sky_envs.agents.checkpoint import policy_metadata

    metadata = policy_metadata(game, OPTIONS, SMALL_NETWORK)
    for k in range(3):
        pool.add_checkpoint(save_checkpoint(tmp_path / f"c{k}.pt", random_policy(game, k), metadata))
    assert [p.rsplit("/", 1)[-1] for p in pool.checkpoint_paths()] == ["c1.pt", "c2.pt"]  # the last `window`
    names = [pool.sample(np.random.default_rng(s)).name for s in range(400)]
    counts = {name: names.count(name) for name in set(names)}
    assert set(counts) == {"latest", "c1", "c2", "random", "greedy"}
    assert 150 < counts["latest"] < 250  # pool.latest = 0.5
    vec = SelfPlayVecEnv("sky_scrapers_v0", OPTIONS, 8, pool, seed=0)
    observations = vec.reset()
    for _ in range(30):
        observations, *_ = vec.step(learner_actions(observations, vec.action_masks()))
