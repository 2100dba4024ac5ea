"""Every config under configs/ (defaults, recipes, experiments) loads, names a registered env and
options that env accepts, and points at checkpoints that exist."""


import pytest
import yaml

import sky_envs
from sky_envs.agents import split_spec
from tests import REPO_ROOT
from training.config import load_config

CONFIG_DIR = REPO_ROOT / "configs"
#: the training configs; a recipe folder's recipe.yaml lists its stages (tests/training/test_recipe.py)
CONFIGS = sorted(path for path in CONFIG_DIR.rglob("*.yaml") if path.name != "recipe.yaml")
DEFAULTS = ["golden_rush", "highrise_heist", "scala", "sky_scrapers", "sky_towers", "skybridge"]


def name(path):
    return str(path.relative_to(CONFIG_DIR))


@pytest.mark.parametrize("path", CONFIGS, ids=name)
def test_config_loads_and_builds_its_env(path):
    config = load_config(path)   # the trainer's own validation
    env = sky_envs.make(config["env"]["id"], **config["env"].get("options", {}))
    env.reset(seed=0)
    assert env.unwrapped.game_state.legal_mask().any()


@pytest.mark.parametrize("path", CONFIGS, ids=name)
def test_shipped_checkpoints_a_config_names_exist(path):
    """``train.init_from`` and a checkpoint ``alphazero.expert`` that point into checkpoints/
    name the shipped file of the config's own env (other names are files the config's comment
    says how to make)."""
    config = yaml.safe_load(path.read_text())
    named = [config.get("train", {}).get("init_from"), config.get("alphazero", {}).get("expert")]
    for spec in filter(None, named):
        file = split_spec(spec)[0]
        if file.startswith("checkpoints/"):
            assert (REPO_ROOT / file).is_file(), file
            assert file.split("/")[1] == config["env"]["id"]


def test_the_defaults_recipes_and_experiments_are_laid_out():
    assert sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")) == DEFAULTS
    recipes = [p for p in CONFIGS if p.parent.parent == CONFIG_DIR / "recipes"]
    assert recipes and (CONFIG_DIR / "experiments").is_dir()
    for recipe in recipes:   # a recipe's stages are numbered in order, in its env's folder
        assert recipe.name[0].isdigit() and recipe.name[1] == "_", recipe
        assert yaml.safe_load(recipe.read_text())["env"]["id"] == recipe.parent.name
    readme = (CONFIG_DIR / "README.md").read_text()
    for path in CONFIGS:
        assert name(path) in readme, f"configs/README.md does not mention {name(path)}"
