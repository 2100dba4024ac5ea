"""League self-play on RLlib (training.league, training.rllib): who plays each seat, baselines
batched inside the env runner, frozen snapshot modules that are never trained, the exported
policy, and resume; the Ray runs are local and short (a real two-node cluster is in
test_rllib_cluster.py)."""

import json

import numpy as np
import pytest
import torch

from tests.integrations.framework_support import framework

LEAGUE = {
    "env.id": "sky_scrapers_v0",
    "env.options": {"board": "square", "rows": 4, "cols": 4, "positioning": "random"},
    "train.n_envs": 4, "train.quick_eval_games": 2, "train.timesteps": 10_000,
    "ppo.n_steps": 16, "ppo.batch_size": 32, "ppo.n_epochs": 1,
    "policy": {"kind": "mlp", "hidden": [32], "activation": "relu"},
    "pool.window": 2, "pool.baselines": ["random", "greedy"],
    "eval.games": 2, "eval.opponents": ["random"], "eval.workers": 1,
}


@pytest.fixture(scope="module")
def rllib():
    return framework("ray.rllib")


@pytest.fixture
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def league_config(**changes):
    from training.config import load_config

    return load_config(None, **{**LEAGUE, **changes})


def league_games(num_games: int, **changes):
    from training.league import LeagueGames

    config = league_config(**changes)
    env_config = {"env_id": config["env"]["id"], "options": config["env"]["options"], "pool": config["pool"], "seed": 3}
    return LeagueGames(env_config, num_games)


def play(games, steps: int, seed: int = 0):
    """Random legal moves for the RLlib seats of every game, ``steps`` times; yields each
    step's rewards and which games it ended (the next step starts them again)."""
    rng = np.random.default_rng(seed)
    observations, _ = games.reset(seed=seed)
    ended = [False] * len(games.envs)
    for _ in range(steps):
        actions = []
        for game, over in zip(observations, ended):
            if over:
                actions.append({})
            else:
                (agent, observation), = game.items()   # one seat decides at a time
                actions.append({agent: int(rng.choice(np.flatnonzero(observation["action_mask"])))})
        observations, rewards, terminateds, truncateds, _ = games.step(actions)
        ended = [t["__all__"] or u["__all__"] for t, u in zip(terminateds, truncateds)]
        yield rewards, ended


def test_seats_are_drawn_per_episode_by_the_collectors_rule(rllib):
    from training.league import MAIN, module_of

    games = league_games(6, **{"pool.latest": 0.5})
    games.set_snapshots([0])   # slot 1 holds no snapshot yet: never drawn
    players = games.game.num_players
    seen = set()
    for rewards, ended in play(games, 400, seed=5):
        for env, game_rewards, over in zip(games.envs, rewards, ended):
            # the learner's seat rotates episode by episode within each slot, as in SelfPlayVecEnv
            learner_seat = (env.slot + env.episodes - 1) % players
            assert env.agent_ids[learner_seat] == f"player_{learner_seat}@{MAIN}"
            for agent, baseline in zip(env.agent_ids, env.baselines):
                assert (agent is None) != (baseline is None)   # a module or a baseline, never both
                seen.add(module_of(agent) if agent is not None else baseline.name)
            if over:   # every RLlib seat that decided gets its return
                returns = env.state.returns()
                assert game_rewards and set(game_rewards) <= set(env.agent_ids)
                assert all(game_rewards[agent] == returns[seat] for seat, agent in enumerate(env.agent_ids)
                           if agent in game_rewards)
    assert min(env.episodes for env in games.envs) >= 3
    assert seen == {MAIN, "snapshot_0", "random", "greedy"}   # the whole published pool, nothing else
    assert {opponent for opponent, _ in games.results} <= {"self", "snapshot_0", "random", "greedy"}


def test_a_baseline_decides_every_game_waiting_on_it_in_one_call(rllib):
    from training.actors import RandomActor

    class Counting(RandomActor):
        calls, decisions = 0, 0

        def act(self, states):
            Counting.calls += 1
            Counting.decisions += len(states)
            return super().act(states)

    games = league_games(8, **{"pool.latest": 0.0, "pool.window": 0, "pool.baselines": ["random"]})
    games.pool.baselines = [Counting(seed=1)]
    for _ in play(games, 30, seed=2):
        pass
    assert Counting.decisions > 8 * 20 and Counting.calls < Counting.decisions / 4


def test_a_game_refuses_an_action_for_a_seat_not_to_move(rllib):
    games = league_games(1)
    observations, _ = games.reset(seed=0)
    (agent, _), = observations[0].items()
    other = next(a for a in games.single_observation_spaces if a != agent)
    with pytest.raises(ValueError, match="turn"):
        games.envs[0].step({other: 0})


def test_the_current_policy_plays_a_frozen_latest_module_when_it_does_not_learn_from_it(rllib):
    from training.league import LATEST, MAIN, league_modules

    pool = league_config(**{"pool.learn_from_latest": False, "pool.latest": 1.0})["pool"]
    assert league_modules(pool)[-1] == LATEST
    games = league_games(4, **{"pool.learn_from_latest": False, "pool.latest": 1.0})
    games.reset(seed=0)
    for env in games.envs:
        assert sorted(agent.rpartition("@")[2] for agent in env.agent_ids) == [LATEST, MAIN]


def test_two_league_iterations_keep_snapshots_frozen_and_export_a_policy_that_plays(rllib, tmp_path, one_torch_thread):
    # pool.learn_from_latest false: the current policy's extra seats are module latest, a copy
    import ray
    from ray.rllib.core.columns import Columns

    import sky_envs
    from sky_envs.agents import make_agent
    from sky_envs.agents.checkpoint import read_checkpoint
    from training.league import LATEST, MAIN, snapshot_module
    from training.rllib import LeagueRun

    config = league_config(**{"pool.learn_from_latest": False})
    env_id, options = config["env"]["id"], config["env"]["options"]
    seen = {}

    def check(run, algorithm, result):
        if run.iterations_done < 2:
            return
        # slot 0 holds iteration 1's snapshot: bit for bit the exported file, in the learner
        # and in the env runner, although main has been trained since; so does module latest,
        # main as iteration 2 began
        _, frozen = read_checkpoint(tmp_path / "checkpoints" / "iter_000001.pt")
        learner = algorithm.learner_group.get_weights(module_ids=[snapshot_module(0), LATEST, MAIN])
        for module in (snapshot_module(0), LATEST):
            runner = algorithm.env_runner.module[module].policy.state_dict()
            for name, tensor in frozen.items():
                assert torch.equal(torch.as_tensor(learner[module]["policy." + name]), tensor)
                assert torch.equal(runner[name], tensor)
        assert any(not torch.equal(torch.as_tensor(learner[MAIN]["policy." + name]), tensor)
                   for name, tensor in frozen.items())
        seen["module"] = algorithm.get_module(MAIN)
        seen["snapshots"] = [s["slot"] for s in run.league.snapshots]

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        run = LeagueRun(config, tmp_path, iterations=2, snapshot_every=1, eval_every=2, log=lambda line: None)
        final = run.train(callback=check)
    finally:
        ray.shutdown()
    assert seen["snapshots"] == [0, 1] and run.iterations_done == 2 and run.steps_done > 0
    check_in = json.loads((tmp_path / "evaluation_iter000002.json").read_text())   # --eval-every 2
    assert check_in["policy"].endswith("iter_000002.pt") and check_in["pairings"][0]["games"] == 2
    agent = make_agent(str(final), env_id=env_id, env_options=options)
    assert agent.metadata["training"]["iterations"] == 2 and agent.metadata["network"]["hidden"] == [32]
    # the exported network is module main's: the same logits on the legal actions, a whole legal game
    env = sky_envs.make(env_id, **options)
    env.reset(seed=1)
    rng, compared = np.random.default_rng(1), 0
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        mask = observation["action_mask"].astype(bool)
        with torch.no_grad():
            out = seen["module"].forward_inference({Columns.OBS: {
                "observations": torch.as_tensor(observation["observation"][None]),
                "action_mask": torch.as_tensor(mask[None].astype(np.float32))}})
        rllib_logits = out[Columns.ACTION_DIST_INPUTS][0].numpy()
        project_logits, _ = agent.evaluator.logits_and_values(observation["observation"][None], mask[None])
        np.testing.assert_allclose(rllib_logits[mask], project_logits[0].numpy()[mask], rtol=1e-5, atol=1e-6)
        compared += 1
        env.step(agent.act(observation, env.unwrapped.game_state) if env.agent_selection == "player_0"
                 else int(rng.choice(np.flatnonzero(mask))))
    assert compared > 3 and env.unwrapped.game_state.is_over()


@pytest.mark.slow
def test_an_interrupted_and_resumed_run_ends_like_an_uninterrupted_one(rllib, tmp_path, one_torch_thread):
    import ray

    from training.rllib import LeagueRun
    from training.signals import TrainingInterrupted

    config = league_config()
    quiet = lambda line: None   # noqa: E731

    def adam_steps(algorithm) -> int:
        optimizer = algorithm.learner_group._learner.get_optimizer("main")
        return int(next(iter(optimizer.state.values()))["step"])

    counters = {}

    def interrupt_after_two(run, algorithm, result):
        if run.iterations_done == 2:
            counters["adam_steps_before"] = adam_steps(algorithm)
            raise TrainingInterrupted(2)   # what Ctrl-C raises, between iterations

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        whole = LeagueRun(config, tmp_path / "whole", iterations=3, snapshot_every=1, log=quiet)
        whole.train()
        cut = LeagueRun(config, tmp_path / "cut", iterations=3, snapshot_every=1, log=quiet)
        with pytest.raises(TrainingInterrupted):
            cut.train(callback=interrupt_after_two)
        steps_before = cut.steps_done
        saved = json.loads((tmp_path / "cut" / "run_state.json").read_text())
        assert saved["iterations_done"] == 2 and saved["algorithm"] == "rllib/iteration_000002"
        resumed = LeagueRun(config, tmp_path / "cut", log=quiet)

        def restored(run, algorithm, result):   # RLlib's own counters and the optimizer went on too
            counters["env_steps"] = result["env_runners"]["num_env_steps_sampled_lifetime"]
            counters["adam_steps"] = adam_steps(algorithm)

        resumed.train(resume=True, callback=restored)
    finally:
        ray.shutdown()
    assert resumed.iterations_done == whole.iterations_done == 3 and resumed.steps_done > steps_before
    pool = lambda run: [(s["slot"], s["iteration"]) for s in run.league.snapshots]   # noqa: E731
    assert pool(resumed) == pool(whole) == [(1, 2), (0, 3)]
    assert counters["env_steps"] == resumed.env_steps
    # Adam's step count went on from the saved optimizer state (a fresh one counts one iteration's)
    assert counters["adam_steps"] > counters["adam_steps_before"] >= 2
    assert sorted(p.name for p in (tmp_path / "cut" / "rllib").iterdir()) == ["iteration_000003"]
