"""Ray RLlib: the turn-based MultiAgentEnv, RLlib's env pre-check, and one PPO iteration
of shared-policy self-play whose export plays through ``make_agent`` (``sky_envs[rllib]``)."""

import warnings

import numpy as np
import pytest

import sky_envs
from tests.integrations.framework_support import framework

ENV_IDS = ["sky_scrapers_v0", "scala_v0", "highrise_heist_v0", "golden_rush_v0", "skybridge_v0", "sky_towers_v0"]


@pytest.fixture(scope="module")
def rllib():
    return framework("ray.rllib")


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("flatten", [False, True])
def test_multi_agent_env_plays_turn_based_masked_games_and_passes_the_pre_check(rllib, env_id, flatten):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from sky_envs.integrations.rllib import SkyMultiAgentEnv

    env = SkyMultiAgentEnv({"env_id": env_id, "flatten": flatten})
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"} and space["action_mask"].dtype == np.float32
    assert len(space["observations"].shape) == 1 if flatten else space["observations"].shape == env.env.unwrapped.game.observation_shape
    rng = np.random.default_rng(0)
    observations, infos = env.reset(seed=0)
    while True:
        (agent, observation), = observations.items()   # one seat decides at a time
        assert space.contains(observation) and agent == env.env.agent_selection
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observations, rewards, terminateds, truncateds, infos = env.step({agent: action})
        if terminateds["__all__"] or truncateds["__all__"]:
            break
    assert set(observations) == set(rewards) == set(env.possible_agents)   # every seat's last reward
    assert sum(rewards.values()) == pytest.approx(sum(env.env.unwrapped.game_state.returns()))
    with warnings.catch_warnings():   # the pre-check's unmasked sample may be illegal: the game ends
        warnings.filterwarnings("ignore", "Illegal move made")
        check_multiagent_environments(SkyMultiAgentEnv({"env_id": env_id, "flatten": flatten}))


def test_multi_agent_env_rejects_a_bad_config(rllib):
    from sky_envs.integrations.rllib import SkyMultiAgentEnv

    with pytest.raises(ValueError, match="env_id"):
        SkyMultiAgentEnv({"game": "scala_v0"})


def test_one_ppo_iteration_exports_a_checkpoint_that_plays(rllib, tmp_path):
    import ray
    import torch
    from ray.rllib.core.columns import Columns

    from sky_envs.agents import make_agent
    from training.config import load_config
    from training.rllib import SHARED, ppo_config, run_iterations

    config = load_config("configs/sky_scrapers.yaml", **{"policy.hidden": [32, 32], "ppo.batch_size": 64,
                                                          "ppo.n_epochs": 1})
    env_id, options = config["env"]["id"], config["env"]["options"]
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        algorithm = ppo_config(config, num_env_runners=0, train_batch_size=128, rollout_fragment_length=64).build_algo()
        path = run_iterations(algorithm, config, tmp_path, iterations=1, log=lambda line: None)
        module = algorithm.get_module(SHARED)
        agent = make_agent(str(path), env_id=env_id, env_options=options)
        assert agent.metadata["training"]["steps"] >= 128 and agent.metadata["network"]["hidden"] == [32, 32]
        # the exported network is the module's: the same logits on the legal actions
        env = sky_envs.make(env_id, **options)
        env.reset(seed=1)
        rng = np.random.default_rng(1)
        compared = 0
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mask = observation["action_mask"].astype(bool)
            with torch.no_grad():
                out = module.forward_inference({Columns.OBS: {
                    "observations": torch.as_tensor(observation["observation"][None]),
                    "action_mask": torch.as_tensor(mask[None].astype(np.float32))}})
            rllib_logits = out[Columns.ACTION_DIST_INPUTS][0].numpy()
            project_logits, _ = agent.evaluator.logits_and_values(observation["observation"][None], mask[None])
            np.testing.assert_allclose(rllib_logits[mask], project_logits[0].numpy()[mask], rtol=1e-5, atol=1e-6)
            assert int(rllib_logits.argmax()) == agent.act(observation, env.unwrapped.game_state)
            compared += 1
            # the exported agent plays seat 0, a random player the others: a whole legal game
            if env.agent_selection == "player_0":
                env.step(agent.act(observation, env.unwrapped.game_state))
            else:
                env.step(int(rng.choice(np.flatnonzero(mask))))
        assert compared > 5 and env.unwrapped.game_state.is_over()
        algorithm.stop()
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_the_command_trains_with_an_env_runner_actor_and_exports(rllib, tmp_path):
    import ray

    from sky_envs.agents import make_agent
    from training.rllib import main

    try:
        assert main(["--config", "configs/golden_rush.yaml", "--iterations", "2", "--num-env-runners", "1",
                     "--train-batch-size", "256", "--run-dir", str(tmp_path)]) == 0
    finally:
        ray.shutdown()
    agent = make_agent(str(tmp_path / "policy.pt"), env_id="golden_rush_v0")
    assert agent.metadata["training"]["iterations"] == 2
