"""Ray RLlib: the turn-based MultiAgentEnv and RLlib's env pre-check (``sky_envs[rllib]``);
league self-play on RLlib is tested in test_rllib_league.py and, on a real two-node
cluster, in test_rllib_cluster.py."""

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
