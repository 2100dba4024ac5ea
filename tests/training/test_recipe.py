"""Recipes (configs/recipes/<env_id>/recipe.yaml) and ``python -m training.recipe``: every shipped
agent has one that parses, references only its own stages, reports what is shipped and plans;
a tiny recipe runs end to end, ships, reports, resumes after an interruption between stages
and inside one, and gives the same weights when run again."""

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import yaml

from sky_envs.agents.checkpoint import read_checkpoint, weights_digest
from sky_envs.core.registry import make_game
from tests import REPO_ROOT
from tests.integrations.ray_cluster_support import two_node_cluster
from tests.training.training_support import SMALL_NETWORK
from training import recipe as recipe_module
from training.config import load_config
from training.recipe_file import header_comment, load_recipe, recipe_from_dict

CHECKPOINTS = REPO_ROOT / "checkpoints"
SHIPPED = sorted(path.parent.name for path in CHECKPOINTS.glob("*/policy.pt"))
MOVED_CONFIGS = {"configs/scala_finetune.yaml", "configs/sky_scrapers_moves3s.yaml"}


@pytest.mark.parametrize("env_id", SHIPPED)
def test_every_shipped_agent_has_a_recipe_of_its_own_stages(env_id):
    recipe = load_recipe(env_id)   # every key, config and reference checked
    assert recipe.env_id == env_id
    for number, stage in enumerate(recipe.stages):
        earlier = {s.name for s in recipe.stages[:number]}
        inputs = {stage.init_from, stage.expert and stage.expert.split("@")[0]} - {None}
        assert inputs <= earlier, stage.name
        assert stage.wall_clock_s and stage.wall_clock_s > 0
    # the run's config of each stage names nothing outside the run folder
    for number in range(1, len(recipe.stages) + 1):
        config = recipe_module.stage_config(recipe, number, REPO_ROOT / "runs" / "x", 1.0)
        for spec in filter(None, [config["train"]["init_from"], config.get("alphazero", {}).get("expert")]):
            if ".pt" in spec:
                assert spec.startswith(str(REPO_ROOT / "runs" / "x")), spec


@pytest.mark.parametrize("env_id", SHIPPED)
def test_a_recipe_reports_what_is_shipped(env_id):
    """The recipe's reports are the shipped reports' recorded commands: the same agents,
    pairings, games and seed, and every shipped report has one."""
    recipe = load_recipe(env_id)
    reports = {report.stem: report for report in recipe.reports}
    shipped = {path.stem: json.loads(path.read_text()) for path in (CHECKPOINTS / env_id).glob("report*.json")}
    assert sorted(reports) == sorted(shipped)
    for stem, data in shipped.items():
        words = data["command"].split()
        agents = words[words.index("--agents") + 1:]
        agents = agents[:next((i for i, w in enumerate(agents) if w.startswith("--")), len(agents))]
        pairings = words[words.index("--pairings") + 1:]
        pairings = pairings[:next(i for i, w in enumerate(pairings) if w.startswith("--"))]
        seed = int(words[words.index("--seed") + 1]) if "--seed" in words else 0
        report = reports[stem]
        assert [a.replace(f"checkpoints/{env_id}/", "") for a in agents] == report.agents, stem
        assert pairings == report.pairings and int(words[words.index("--games") + 1]) == report.games, stem
        assert seed == report.seed, stem
        config = words[words.index("--config") + 1]
        if report.config:   # a report on a game of its own: that config
            assert REPO_ROOT / config == report_config(report), stem
        elif config not in MOVED_CONFIGS:   # the same game as the recipe's stages (options with defaults filled in)
            assert game_of(REPO_ROOT / config) == game_of(recipe.stages[-1].config_path)
    if recipe.board_free:   # the second shipped file: what training.board_free and training.ship made
        metadata, _ = read_checkpoint(CHECKPOINTS / env_id / recipe.board_free.file)
        words = metadata["training"]["command"].split()
        assert REPO_ROOT / words[words.index("--config") + 1] == recipe.board_free.config_path
        assert metadata["training"]["value_fit"]["games"] == recipe.board_free.value_games
        assert metadata["training"]["value_fit"]["steps"] == recipe.board_free.value_steps
        assert metadata["search"] == recipe.board_free.ship


def report_config(report):
    from training.recipe_file import config_path

    return config_path(report.config)


def game_of(config_path) -> tuple:
    """The game a config plays: env id, board mixture and every option (defaults filled in)."""
    env = load_config(config_path)["env"]
    return env["id"], env.get("mixture"), make_game(env["id"], **env["options"]).options()


def lineage(metadata: dict) -> list[dict]:
    """The training records of a checkpoint and the ones it started from, first stage first."""
    chain, record = [], metadata["training"]
    while record:
        chain.append(record)
        record = record.get("init_from", {}).get("training")
    return chain[::-1]


@pytest.mark.parametrize("env_id", SHIPPED)
def test_a_recipes_budgets_and_costs_are_the_shipped_lineages(env_id):
    """The last stages of a recipe are the runs the shipped file records: the same wall-clock
    seconds, and budgets that stop where those runs' networks were taken (a PPO run stops
    after a whole rollout, expert iteration after the iteration that passes the budget)."""
    recipe = load_recipe(env_id)
    metadata, _ = read_checkpoint(CHECKPOINTS / env_id / "policy.pt")
    records = lineage(metadata)
    stages = recipe.stages[-len(records):]
    assert len(stages) == len(records)
    for stage, record in zip(stages, records):
        config = load_config(stage.config_path)
        assert stage.wall_clock_s == record["wall_clock_s"], stage.name
        if config["train"]["algorithm"] == "ppo":
            rollout = config["train"]["n_envs"] * config["ppo"]["n_steps"]
            assert record["steps"] == math.ceil(stage.budget / rollout) * rollout, stage.name
        else:
            assert stage.budget <= record["steps"] < stage.budget + 2000, stage.name
    assert recipe.ship.get("average_symmetries", False) == metadata.get("average_symmetries", False)
    for key, value in metadata.get("search", {}).items():
        assert recipe.ship[key] == value


@pytest.mark.parametrize("env_id", SHIPPED)
def test_dry_run_plans_every_step_with_its_cost(env_id, tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert recipe_module.main([env_id, "--dry-run", "--run-dir", str(run_dir)]) == 0
    out = capsys.readouterr().out
    recipe = load_recipe(env_id)
    for number, stage in enumerate(recipe.stages, 1):
        assert f"--config {run_dir}/{number:02d}_{stage.name}/config.yaml" in out
    assert out.count("python -m training.train") == len(recipe.stages)
    assert "python -m training.ship" in out and out.count("python -m training.evaluate") == len(recipe.reports)
    assert " min here" in out or " h here" in out
    assert not run_dir.exists()   # a dry run writes nothing


def test_train_hands_recipe_to_the_recipe_command(tmp_path, capsys):
    """``sky-envs train --recipe ENV_ID`` (the cli calls training.train's main) plans the recipe."""
    from sky_envs.cli import COMMANDS
    from training import train

    assert COMMANDS["train"][0] == "training.train"
    assert train.main(["--recipe", "skybridge_v0", "--dry-run", "--run-dir", str(tmp_path / "r")],
                      prog="sky-envs train") == 0
    assert "python -m training.train --config" in capsys.readouterr().out


@pytest.mark.parametrize("change, message", [
    ({"stages": [{"name": "b", "config": "skybridge.yaml", "budget": 10, "init_from": "a"}]}, "earlier stage"),
    ({"stages": [{"name": "a", "config": "skybridge.yaml", "budget": 0}]}, "budget"),
    ({"stages": [{"name": "a", "config": "skybridge.yaml", "budget": 10, "colour": 1}]}, "expected a mapping"),
    ({"stages": [{"name": "a", "config": "scala.yaml", "budget": 10}]}, "not skybridge_v0"),
    ({"stages": [{"name": "a", "config": "skybridge.yaml", "budget": 10, "expert": "a@4"}]}, "earlier stage"),
    ({"ship": {"colour": 1}}, "ship settings"),
    ({"reports": [{"stem": "r", "agents": ["other.pt"], "games": 2}]}, "neither a shipped file"),
    ({"reports": [{"stem": "r", "agents": ["policy.pt"], "games": 2, "config": "scala.yaml"}]}, "not skybridge_v0"),
    ({"board_free": {"file": "policy.pt", "config": "skybridge.yaml"}}, "other than policy.pt"),
    ({"board_free": {"file": "u.pt", "config": "skybridge.yaml", "value_games": -1}}, "value_games"),
    ({"board_free": {"file": "u.pt", "config": "scala.yaml"}}, "not skybridge_v0"),
    ({"board_free": {"config": "skybridge.yaml"}}, "expected a mapping with file, config"),
])
def test_bad_recipes_are_refused_with_what_is_wrong(change, message):
    data = {"env": "skybridge_v0", "stages": [{"name": "a", "config": "skybridge.yaml", "budget": 10}], **change}
    with pytest.raises(ValueError, match=message):
        recipe_from_dict(data)


# ------------------------------------------------------------- a tiny recipe, run
OPTIONS = {"board": "square", "rows": 4, "cols": 4, "positioning": "random"}


def tiny_recipe(folder, budget_ppo=512, budget_expert=60):
    """Two stages on 4x4 Sky Scrapers: PPO (its config asking for two torch threads,
    bfloat16 and the fused Adam, as default configs do), then expert iteration from its weights with its search (shipped with
    c_puct 0.5) as the expert; shipped with c_puct 0.8 and one report."""
    env = {"id": "sky_scrapers_v0", "options": OPTIONS}
    ppo = {"env": env, "train": {"timesteps": 1, "n_envs": 4, "checkpoint_every": 128, "quick_eval_games": 2,
                                 "torch_threads": 2, "precision": "bfloat16", "fused_adam": True},
           "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1}, "policy": SMALL_NETWORK}
    expert = {"env": env, "train": {"algorithm": "alphazero", "timesteps": 1, "checkpoint_every": 40,
                                    "quick_eval_games": 2},
              "policy": SMALL_NETWORK, "alphazero": {"simulations": 4, "parallel_games": 2, "batch_size": 16,
                                                     "expert": "teacher.pt@2", "expert_moves": 0.5}}
    recipe = {"env": "sky_scrapers_v0",
              "stages": [{"name": "selfplay", "config": str(folder / "ppo.yaml"), "budget": budget_ppo,
                          "wall_clock_s": 2.0, "ship": {"c_puct": 0.5}},
                         {"name": "distill", "config": str(folder / "expert.yaml"), "budget": budget_expert,
                          "init_from": "selfplay", "expert": "selfplay@2", "wall_clock_s": 3.0}],
              "ship": {"c_puct": 0.8},
              "reports": [{"stem": "report", "agents": ["policy.pt", "random"], "pairings": ["policy:random"],
                           "games": 4}]}
    for name, data in (("ppo.yaml", ppo), ("expert.yaml", expert), ("recipe.yaml", recipe)):
        (folder / name).write_text(yaml.safe_dump(data))
    return folder / "recipe.yaml"


def digests(run_dir) -> dict[str, str]:
    """Each network's weights digest: the stages' final.pt and the shipped file."""
    return {str(path.relative_to(run_dir)): weights_digest(read_checkpoint(path)[1])
            for path in sorted(run_dir.glob("*/final.pt")) + [run_dir / "shipped" / "policy.pt"]}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """One uninterrupted run of the tiny recipe: (recipe file, run folder)."""
    folder = tmp_path_factory.mktemp("tiny_recipe")
    recipe = tiny_recipe(folder)
    run_dir = folder / "run"
    assert recipe_module.main([str(recipe), "--run-dir", str(run_dir), "--no-progress"]) == 0
    return recipe, run_dir


def test_a_tiny_recipe_runs_every_stage_ships_and_reports(tiny_run):
    recipe, run_dir = tiny_run
    state = json.loads((run_dir / "recipe.json").read_text())
    assert state["done"] == ["train 01_selfplay", "ship 01_selfplay", "train 02_distill", "ship", "report report"]
    shipped, _ = read_checkpoint(run_dir / "shipped" / "policy.pt")
    assert shipped["search"] == {"c_puct": 0.8} and shipped["env_options"] == OPTIONS
    source = shipped["training"]["init_from"]
    assert source["file"] == str((run_dir / "01_selfplay" / "shipped.pt").resolve())
    assert read_checkpoint(source["file"])[0]["search"] == {"c_puct": 0.5}   # the expert's settings
    config = load_config(run_dir / "02_distill" / "config.yaml")
    assert config["alphazero"]["expert"] == f"{source['file']}@2"
    for stage in ("01_selfplay", "02_distill"):    # every stage on one torch thread in float32, per-tensor Adam,
        train = load_config(run_dir / stage / "config.yaml")["train"]              # whatever its file asks
        assert (train["torch_threads"], train["precision"], train["fused_adam"]) == (1, "float32", False)
    assert shipped["training"]["steps"] >= 60
    report = json.loads((run_dir / "shipped" / "report.json").read_text())
    assert [(p["a"], p["b"], p["games"]) for p in report["pairings"]] == [("policy", "random", 4)]
    for suffix in ("csv", "png", "games.jsonl"):
        assert (run_dir / "shipped" / f"report.{suffix}").is_file()


def test_a_rerun_gives_the_same_weights_bit_for_bit(tiny_run, tmp_path):
    recipe, first = tiny_run
    again = tmp_path / "again"
    assert recipe_module.main([str(recipe), "--run-dir", str(again), "--no-progress"]) == 0
    assert digests(again) == digests(first)


def test_a_run_resumed_between_stages_gives_the_same_weights(tiny_run, tmp_path):
    recipe, first = tiny_run
    run_dir = tmp_path / "run"
    assert recipe_module.main([str(recipe), "--run-dir", str(run_dir), "--stages", "1", "--no-progress"]) == 0
    state = json.loads((run_dir / "recipe.json").read_text())
    assert state["done"] == ["train 01_selfplay", "ship 01_selfplay"]
    assert not (run_dir / "shipped").exists()
    with pytest.raises(SystemExit):   # stage 2 alone needs stage 1's output: here it is made, elsewhere not
        recipe_module.main([str(recipe), "--run-dir", str(tmp_path / "other"), "--stages", "2.."])
    assert recipe_module.main(["--resume", str(run_dir), "--no-progress"]) == 0
    assert digests(run_dir) == digests(first)


MOVES_NETWORK = {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 4, "head_hidden": [8],
                 "policy_head": "moves"}


def test_a_recipe_with_board_free_ships_a_network_for_every_board_and_reports_on_its_boards(tmp_path):
    """``board_free``: after the shipped file, training.board_free makes the second network from
    it, training.ship ships it beside policy.pt, and a report plays it on a board of its own."""
    env = {"id": "sky_scrapers_v0", "options": OPTIONS}
    five = {**OPTIONS, "rows": 5, "cols": 5}
    files = {
        "stage.yaml": {"env": env, "policy": MOVES_NETWORK,
                       "train": {"algorithm": "alphazero", "timesteps": 1, "checkpoint_every": 40,
                                 "quick_eval_games": 2},
                       "alphazero": {"simulations": 4, "parallel_games": 2, "batch_size": 16}},
        "free.yaml": {"env": {**env, "mixture": [{"options": OPTIONS}, {"options": five}]},
                      "policy": {**MOVES_NETWORK, "any_board": True}, "train": {"algorithm": "alphazero"}},
        "five.yaml": {"env": {"id": "sky_scrapers_v0", "options": five}},
        "recipe.yaml": {"env": "sky_scrapers_v0",
                        "stages": [{"name": "selfplay", "config": str(tmp_path / "stage.yaml"), "budget": 20}],
                        "board_free": {"file": "universal.pt", "config": str(tmp_path / "free.yaml"),
                                       "value_games": 3, "value_steps": 20, "ship": {"c_puct": 2.0}},
                        "reports": [{"stem": "report_5x5", "config": str(tmp_path / "five.yaml"),
                                     "agents": ["universal.pt@4", "random"], "pairings": ["universal@4:random"],
                                     "games": 2}]}}
    for name, data in files.items():
        (tmp_path / name).write_text(yaml.safe_dump(data))
    run_dir = tmp_path / "run"
    assert recipe_module.main([str(tmp_path / "recipe.yaml"), "--run-dir", str(run_dir), "--no-progress"]) == 0
    state = json.loads((run_dir / "recipe.json").read_text())
    assert state["done"] == ["train 01_selfplay", "ship", "board_free", "ship board_free", "report report_5x5"]
    universal, _ = read_checkpoint(run_dir / "shipped" / "universal.pt")
    assert universal["option_ranges"]["rows"] == {"min": 4, "max": 5} and universal["search"] == {"c_puct": 2.0}
    assert universal["training"]["recipe"] == "python -m training.recipe sky_scrapers_v0"
    assert universal["training"]["value_fit"]["games"] == 3 and universal["training"]["value_fit"]["steps"] == 20
    assert universal["training"]["specialist"]["file"] == str(run_dir / "shipped" / "policy.pt")
    report = json.loads((run_dir / "shipped" / "report_5x5.json").read_text())
    assert report["env_options"]["rows"] == 5
    assert [(p["a"], p["b"], p["games"]) for p in report["pairings"]] == [("universal@4", "random", 2)]
    assert recipe_module.main(["--resume", str(run_dir), "--no-progress"]) == 0   # read back from recipe.json
    assert json.loads((run_dir / "recipe.json").read_text())["done"] == state["done"]


def test_a_run_stopped_inside_a_stage_resumes_where_it_stopped(tmp_path):
    """SIGTERM inside the expert-iteration stage: the command returns 143 with the stage's run
    saved; --resume finishes it with the weights of an uninterrupted run."""
    recipe = tiny_recipe(tmp_path, budget_expert=400)
    whole, stopped = tmp_path / "whole", tmp_path / "stopped"
    for run_dir in (whole, stopped):
        assert recipe_module.main([str(recipe), "--run-dir", str(run_dir), "--stages", "1", "--no-progress"]) == 0
    assert recipe_module.main(["--resume", str(whole), "--no-progress"]) == 0
    state_file = stopped / "02_distill" / "run_state.json"

    def stop_after_the_first_iteration():   # a real SIGTERM to this process, inside the stage
        while not (state_file.is_file() and json.loads(state_file.read_text())["iteration"] >= 1):
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGTERM)

    watcher = threading.Thread(target=stop_after_the_first_iteration, daemon=True)
    watcher.start()
    assert recipe_module.main(["--resume", str(stopped), "--no-progress"]) == 128 + signal.SIGTERM
    watcher.join()
    state = json.loads((stopped / "recipe.json").read_text())
    assert "train 02_distill" not in state["done"] and "train 01_selfplay" in state["done"]
    assert 0 < json.loads(state_file.read_text())["steps_done"] < 400
    assert recipe_module.main(["--resume", str(stopped), "--no-progress"]) == 0
    assert digests(stopped) == digests(whole)


@pytest.mark.slow
def test_a_tiny_recipe_runs_its_steps_as_tasks_on_a_ray_cluster(tiny_run, tmp_path):
    """A real two-node cluster, started with Ray's CLI on loopback with token authentication
    (tests/integrations/ray_cluster_support.py): the tiny recipe's steps run there as Ray
    tasks and give the weights of a run in this process."""
    recipe, local = tiny_run
    with two_node_cluster() as (address, env):
        run_dir = tmp_path / "run"   # the driver in a process of its own: Ray reads RAY_AUTH_MODE when imported
        done = subprocess.run([sys.executable, "-m", "training.recipe", str(recipe), "--run-dir", str(run_dir),
                               "--address", address, "--no-progress"], cwd=REPO_ROOT, env=env, capture_output=True,
                              text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert digests(run_dir) == digests(local)


def test_the_docs_show_a_recipes_comment_without_its_run_line(tmp_path):
    path = tmp_path / "recipe.yaml"
    path.write_text("# The shipped file is this recipe's output (metadata records\n"
                    "# `python -m training.recipe demo_v0`), rebuilt from nothing.\n"
                    "# Run: python -m training.recipe demo_v0 (--dry-run prints the plan).\n"
                    "env: demo_v0\n# not part of the header\n")
    assert header_comment(path) == ("The shipped file is this recipe's output (metadata records "
                                    "`python -m training.recipe demo_v0`), rebuilt from nothing.")
