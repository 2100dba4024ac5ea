"""The ``sky-envs`` command and the ``python -m`` forms: prog names, defaults, errors, specs."""

import gymnasium
import pytest

import sky_envs
from sky_envs import cli
from sky_envs.agents import SearchAgent, make_agent
from sky_envs.agents.pretrained import default_config, pretrained_path
from tests import REPO_ROOT


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_help_names_the_command_as_typed(name, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main([name, "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: sky-envs {name} ")
    if name != "replay":
        assert "(default: " in text


@pytest.mark.parametrize("module, prog", [("training.train", "python -m training.train"),
                                          ("training.evaluate", "python -m training.evaluate"),
                                          ("sky_envs.play.__main__", "python -m sky_envs.play"),
                                          ("sky_envs.replay", "python -m sky_envs.replay"),
                                          ("sky_envs.demo", "python -m sky_envs.demo")])
def test_module_help_names_python_m(module, prog, capsys):
    import importlib

    with pytest.raises(SystemExit):
        importlib.import_module(module).main(["--help"])
    assert capsys.readouterr().out.startswith(f"usage: {prog} ")


def test_train_help_shows_defaults_of_evaluate(capsys):
    with pytest.raises(SystemExit):
        cli.main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "games per pairing (default: 40)" in text and "pretrained" in text


def test_unknown_subcommand(capsys):
    assert cli.main(["trian"]) == 2
    assert "unknown subcommand 'trian'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["evaluate", "--env", "scala", "--agents", "random", "greedy"],
                                  ["train", "--env", "scala", "--timesteps", "10"],
                                  ["play", "--env", "scala"]])
def test_wrong_env_lists_the_valid_ids(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "'scala'" in err and all(env_id in err for env_id in sky_envs.env_ids())


def test_train_env_and_config_exclusive(capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", "--env", "scala_v0", "--config", str(REPO_ROOT / "configs" / "scala.yaml")])
    assert "not both" in capsys.readouterr().err


def test_default_config_is_the_games_yaml():
    assert default_config("golden_rush_v0") == REPO_ROOT / "configs" / "golden_rush.yaml"
    assert default_config("sky_envs/scala-v0") == REPO_ROOT / "configs" / "scala.yaml"


def test_pretrained_is_the_shipped_checkpoint():
    assert pretrained_path("scala_v0") == REPO_ROOT / "checkpoints" / "scala_v0" / "policy.pt"
    agent = make_agent("pretrained", env_id="scala_v0", seed=0)
    assert agent.metadata["env_id"] == "scala_v0"
    searcher = make_agent("pretrained@8", env_id="sky_towers_v0", seed=0)
    assert isinstance(searcher, SearchAgent) and searcher.name == "policy@8"


@pytest.mark.parametrize("kwargs, message", [({}, "needs env_id"),
                                             ({"env_id": "scala_v0", "env_options": {"board": "x"}}, "refuses"),
                                             ({"env_id": "scala"}, "registered ids")])
def test_pretrained_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_agent("pretrained", **kwargs)


def test_pretrained_for_an_env_without_a_checkpoint():
    with pytest.raises(ValueError, match="no network is shipped for 'nocheckpoint_v0'"):
        make_agent("pretrained", env_id="nocheckpoint_v0")


def test_gym_opponent_pretrained():
    env = gymnasium.make("sky_envs/scala-v0", opponent="pretrained", seat=0)
    env.reset(seed=0)
    assert env.unwrapped.opponents[0].metadata["env_id"] == "scala_v0"


def test_evaluate_cli_with_pretrained(tmp_path, capsys):
    assert cli.main(["evaluate", "--env", "scala_v0", "--agents", "pretrained@2", "random", "--games", "1",
                     "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "pretrained@2 vs random" in out
    import json

    assert json.loads((tmp_path / "evaluation.json").read_text())["command"].startswith("sky-envs evaluate ")
