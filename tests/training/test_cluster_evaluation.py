"""Tournament games as Ray tasks (``training.evaluate --ray-address``, training.cluster): the
same result game for game as one process, journaled as they arrive and ``--resume``-able.
A local Ray instance with two CPUs stands in for the cluster (test_rllib_cluster.py runs
the same command on a real two-node cluster)."""

import json

import pytest

from sky_envs.agents import save_checkpoint
from sky_envs.agents.checkpoint import policy_metadata
from sky_envs.core.registry import make_game
from tests.integrations.framework_support import framework
from tests.training.training_support import SMALL_NETWORK, TINY, random_policy
from training.evaluate import main

OPTIONS = TINY["env.options"]


@pytest.fixture(scope="module")
def local_ray():
    ray = framework("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def games(journal) -> list[dict]:
    """A journal's games (its header is the first line), in a fixed order."""
    lines = journal.read_text().splitlines()[1:]
    return sorted((json.loads(line) for line in lines), key=lambda g: (g["a"], g["b"], g["game"]))


def test_ray_tasks_play_the_one_process_games_and_resume_a_journal(local_ray, tmp_path, capsys):
    game = make_game("sky_scrapers_v0", **OPTIONS)
    network = save_checkpoint(tmp_path / "net.pt", random_policy(game, 3), policy_metadata(game, OPTIONS, SMALL_NETWORK))
    config = tmp_path / "board.yaml"
    config.write_text(json.dumps({"env": {"id": "sky_scrapers_v0", "options": OPTIONS}}))
    command = ["--config", str(config), "--agents", "random", "greedy", "mcts@4", str(network), "--games", "4",
               "--seed", "7"]
    assert main(command + ["--out", str(tmp_path / "one")]) == 0
    capsys.readouterr()
    assert main(command + ["--out", str(tmp_path / "ray"), "--ray-address", "auto"]) == 0
    assert "playing on the Ray cluster at auto: 2 CPUs" in capsys.readouterr().out
    one, ray = games(tmp_path / "one" / "evaluation.games.jsonl"), games(tmp_path / "ray" / "evaluation.games.jsonl")
    assert len(one) == 6 * 4 and ray == one
    report = json.loads((tmp_path / "ray" / "evaluation.json").read_text())
    assert report["pairings"] == json.loads((tmp_path / "one" / "evaluation.json").read_text())["pairings"]
    # a run stopped half way: --resume plays only the missing games, on the cluster
    journal = tmp_path / "ray" / "evaluation.games.jsonl"
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:1 + 10]) + "\n")
    assert main(command + ["--out", str(tmp_path / "ray"), "--ray-address", "auto", "--resume"]) == 0
    assert games(journal) == one and len(journal.read_text().splitlines()) == 1 + 24


def test_ray_address_and_workers_are_exclusive(capsys):
    with pytest.raises(SystemExit):
        main(["--env", "sky_scrapers_v0", "--agents", "random", "greedy", "--workers", "2", "--ray-address", "auto"])
    assert "--ray-address" in capsys.readouterr().err
