"""Round trips through each RL framework's own PettingZoo wrapper, no glue: masked random
games on a 2-seat game and on the 4-seat golden_rush_v0 (the ``sky_envs[frameworks]`` extra).

``raw_env`` (``sky_envs.make_raw``) raises on an illegal action, so a finished rollout
proves every action the framework took was legal under the mask it was given.
"""

import warnings

import numpy as np
import pytest

import sky_envs
from tests.integrations.framework_support import framework

GAMES = ["sky_scrapers_v0", "golden_rush_v0"]


@pytest.mark.parametrize("env_id", GAMES)
def test_torchrl_pettingzoo_wrapper_rolls_out_masked_games(env_id):
    framework("torchrl")
    from torchrl.envs import PettingZooWrapper

    env = PettingZooWrapper(env=sky_envs.make_raw(env_id), use_mask=True, return_state=True, seed=0)
    rollout = env.rollout(300, break_when_any_done=False)
    assert rollout["next", "done"].sum() >= 1, "300 random steps finish at least one game"
    assert rollout["state"].shape[1:] == sky_envs.make_game(env_id).state_shape
    for group in env.group_map:
        info = rollout["next", group, "info"]
        assert set(info.keys()) == {"turn", "phase", "scores", "winners", "illegal_action"}
        assert (info["illegal_action"] == -1).all()


@pytest.mark.parametrize("env_id", GAMES)
def test_tianshou_pettingzoo_env_collects_masked_random_games(env_id):
    framework("tianshou")
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():
        return PettingZooEnv(sky_envs.make_raw(env_id))

    env = make()
    random_players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=random_players, env=env)
    collector = Collector(algorithm.policy, DummyVectorEnv([make, make]), VectorReplayBuffer(20_000, 2))
    result = collector.collect(n_episode=4, reset_before_collect=True)
    assert result.n_collected_episodes == 4
    players = len(env.agents)
    assert np.asarray(result.returns).shape == (4, players)
    winners = collector.buffer.info["winners"]
    assert winners.shape[1:] == (players,) and winners.dtype == np.int8


@pytest.mark.parametrize("env_id", GAMES)
def test_rllib_pettingzoo_env_plays_masked_games_and_passes_the_env_check(env_id):
    framework("ray.rllib")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = PettingZooEnv(sky_envs.make_raw(env_id))
    rng = np.random.default_rng(0)
    for seed in range(2):
        observations, infos = env.reset(seed=seed)
        while True:
            (agent, observation), = observations.items()
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observations, rewards, terminations, truncations, infos = env.step({agent: action})
            if terminations["__all__"] or truncations["__all__"]:
                break
        assert set(rewards) == set(env.get_agent_ids())
        assert all(info["winners"].shape == (len(rewards),) for info in infos.values())
    # RLlib's pre-check steps an unmasked sample: env() ends the game if it is illegal
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Illegal move made")
        check_multiagent_environments(PettingZooEnv(sky_envs.make(env_id)))
