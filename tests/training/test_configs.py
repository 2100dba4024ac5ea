"""Every shipped config names a registered env and options that env accepts."""


import pytest
import yaml

import sky_envs
from tests import REPO_ROOT

CONFIGS = sorted((REPO_ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_builds_its_env(path):
    config = yaml.safe_load(path.read_text())
    env = sky_envs.make(config["env"]["id"], **config["env"].get("options", {}))
    env.reset(seed=0)
    assert env.unwrapped.game_state.legal_mask().any()


def test_there_are_configs():
    assert CONFIGS
