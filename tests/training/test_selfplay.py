"""Self-play training, checkpoints and evaluation, with real MaskablePPO on tiny budgets."""

import json
import zipfile

import numpy as np
import pytest
import torch

import sky_envs
from sky_envs.agents import PolicyAgent, load_checkpoint, make_agent
from sky_envs.gym_env import SingleAgentEnv
from tests.training.training_support import TINY, quiet, tiny_config
from training.config import load_config
from training.ratings import bradley_terry, wilson_interval
from training.selfplay import SelfPlayRun
from tests import REPO_ROOT

@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    run = SelfPlayRun(tiny_config(), run_dir, progress=False, log=quiet)
    final = run.train()
    report = run.evaluate(final)
    return run, final, report


def test_a_run_writes_checkpoints_a_final_policy_and_a_report(trained):
    run, final, report = trained
    checkpoints = sorted((run.run_dir / "checkpoints").glob("step_*.pt"))
    assert [p.name for p in checkpoints] == ["step_000000128.pt", "step_000000256.pt"]
    assert final.is_file() and (run.run_dir / "model_latest.zip").is_file()
    with zipfile.ZipFile(run.run_dir / "model_latest.zip") as model:   # a resume resets the games: no last step kept
        assert "num_timesteps" in json.loads(model.read("data")) and "_last_obs" not in json.loads(model.read("data"))
    state = json.loads((run.run_dir / "run_state.json").read_text())
    assert state["steps_done"] == 256 and len(state["quick_evals"]) == 2
    assert state["pool"] == ["checkpoints/step_000000128.pt", "checkpoints/step_000000256.pt"]  # run-relative
    assert set(report["ratings"]) == {"policy", "random", "greedy", "mcts"} and report["ratings"]["random"] == 0
    assert len(report["pairings"]) == 6 and all(p["games"] == 2 for p in report["pairings"])
    for suffix in ("json", "csv", "png"):
        assert (run.run_dir / f"evaluation.{suffix}").stat().st_size > 0
    assert list(run.run_dir.glob("tb/*"))


def test_tensorboard_shows_learner_steps_per_second(trained):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run, _, _ = trained
    (events,) = run.run_dir.glob("tb/*")
    scalars = EventAccumulator(str(events)).Reload()
    rates = [event.value for event in scalars.Scalars("time/learner_steps_per_s")]
    assert len(rates) == 4 and all(rate > 0 for rate in rates)  # one per rollout-and-update cycle


def test_checkpoint_plays_in_the_aec_env_and_as_a_gym_opponent(trained):
    run, final, _ = trained
    options = TINY["env.options"]
    agent = make_agent(str(final), env_id="sky_scrapers_v0", env_options=options)
    assert isinstance(agent, PolicyAgent) and agent.metadata["training"]["steps"] == 256
    assert 0 < agent.metadata["training"]["wall_clock_s"] == round(run.seconds, 1)
    env = sky_envs.make_raw("sky_scrapers_v0", **options)
    env.reset(seed=0)
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agent.act(observation))
    gym_env = SingleAgentEnv("sky_scrapers_v0", opponent=str(final), **options)
    observation, info = gym_env.reset(seed=1)
    gym_env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_config_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match="unknown config key 'train.timestep'"):
        load_config(None, **{"env.id": "sky_scrapers_v0", "train.timestep": 5})
    with pytest.raises(ValueError, match="names no env"):
        load_config(None)
    with pytest.raises(ValueError, match="train.n_envs must be a positive integer"):
        load_config(None, **{"env.id": "sky_scrapers_v0", "train.n_envs": 0})
    with pytest.raises(ValueError, match="train.timesteps must be a positive integer, got True"):
        load_config(None, **{"env.id": "sky_scrapers_v0", "train.timesteps": True})
    with pytest.raises(ValueError, match="train.processes"):
        load_config(None, **{"env.id": "sky_scrapers_v0", "train.n_envs": 2, "train.processes": 3})
    with pytest.raises(ValueError, match="pool.latest"):
        load_config(None, **{"env.id": "sky_scrapers_v0", "pool.latest": 2})
    with pytest.raises(ValueError, match="pool.learn_from_latest must be true or false"):
        load_config(None, **{"env.id": "sky_scrapers_v0", "pool.learn_from_latest": "yes"})
    with pytest.raises(ValueError, match="eval.workers must be a positive integer"):
        load_config(None, **{"env.id": "sky_scrapers_v0", "eval.workers": 0})
    with pytest.raises(ValueError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ValueError, match="players=3"):
        SelfPlayRun(tiny_config(**{"env.options": {"players": 3}}), tmp_path)


def test_ratings_and_intervals():
    even = bradley_terry(["a", "b"], [{"a": "a", "b": "b", "wins": 5, "draws": 0, "losses": 5}], anchor="a")
    assert abs(even["b"]) < 1e-6
    strong = bradley_terry(["a", "b", "c"], [
        {"a": "a", "b": "b", "wins": 9, "draws": 0, "losses": 1},
        {"a": "b", "b": "c", "wins": 9, "draws": 0, "losses": 1},
        {"a": "a", "b": "c", "wins": 10, "draws": 0, "losses": 0}], anchor="c")
    assert strong["a"] > strong["b"] > strong["c"] == 0 and np.isfinite(strong["a"])
    low, high = wilson_interval(5, 10)
    assert low < 0.5 < high and 0 <= low and high <= 1
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)


def test_evaluate_cli_prints_a_table(trained, tmp_path, capsys):
    from training.evaluate import main

    _, final, _ = trained
    env_options = TINY["env.options"]
    config = tmp_path / "c.yaml"
    import yaml

    config.write_text(yaml.safe_dump({"env": {"id": "sky_scrapers_v0", "options": env_options}}))
    main(["--config", str(config), "--agents", "random", "greedy", str(final), "--games", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "random vs greedy" in out and "final" in out and (tmp_path / "evaluation.csv").is_file()
    with pytest.raises(SystemExit):
        main(["--env", "scala_v0", "--agents", "random", str(final), "--games", "2"])
    main(["--config", str(config), "--agents", f"{final}@2", "random", "mcts@3", "--pairings", "final@2:mcts@3:3",
          "--games", "2", "--out", str(tmp_path), "--stem", "report"])
    report = json.loads((tmp_path / "report.json").read_text())
    assert [(p["a"], p["b"], p["games"]) for p in report["pairings"]] == [("final@2", "mcts@3", 3)]
    assert "--pairings final@2:mcts@3:3" in report["command"]
    with pytest.raises(SystemExit):
        main(["--config", str(config), "--agents", "random", "greedy", "--pairings", "random:mcts"])


def test_a_checkpoint_for_another_board_is_refused_as_a_gym_opponent(trained):
    _, final, _ = trained
    with pytest.raises(ValueError, match="expects observations"):
        SingleAgentEnv("sky_scrapers_v0", opponent=str(final))  # the standard 6x6 board


def test_a_match_shared_among_processes_gives_the_result_of_one(tmp_path):
    from training.tournament import match, read_journal, write_journal_header

    options = TINY["env.options"]
    a, b = ("mcts", make_agent("mcts@4", seed=1)), ("greedy", make_agent("greedy", seed=2))
    one = match("sky_scrapers_v0", options, a, b, 6, seed=3)
    journal = tmp_path / "games.jsonl"
    write_journal_header(journal, {"seed": 3})
    two = match("sky_scrapers_v0", options, a, b, 6, seed=3, workers=2, journal=journal)
    assert one == two and one.games == 6
    known = read_journal(journal, {"seed": 3})[("mcts", "greedy")]   # every worker's games, each once
    assert sorted(known) == list(range(6)) and sum(r > 0 for r in known.values()) == one.wins


def test_game_g_of_a_match_is_played_with_seed_plus_g(tmp_path):
    """What evaluate's --seed documents: nearby seeds share start positions, seats shifted."""
    import json

    from training.tournament import match

    options = TINY["env.options"]
    a, b = ("random", make_agent("random", seed=1)), ("greedy", make_agent("greedy", seed=2))
    match("sky_scrapers_v0", options, a, b, 3, seed=5, save_games=tmp_path)
    replays = [json.loads(path.read_text()) for path in sorted(tmp_path.glob("*.json"))]
    assert [replay["seed"] for replay in replays] == [5, 6, 7]
    assert [replay["players"].index("random") for replay in replays] == [0, 1, 0]


def _evaluate_args(config, out, *extra):
    return ["--config", str(config), "--agents", "random", "greedy", "mcts@4", "--games", "4", "--out", str(out),
            *extra]


def test_a_stopped_evaluation_resumes_from_its_game_journal(tmp_path, monkeypatch):
    """Games finished before a stop are kept (one journal line each) and --resume counts
    them instead of playing them again: the report is the uninterrupted run's."""
    import signal

    import yaml

    import training.tournament as tournament
    from training.evaluate import main
    from training.signals import TrainingInterrupted

    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"env": {"id": "sky_scrapers_v0", "options": TINY["env.options"]}}))
    assert main(_evaluate_args(config, tmp_path / "whole")) == 0
    whole = json.loads((tmp_path / "whole" / "evaluation.json").read_text())
    play, played = tournament.play_game, []

    def stopped_at_the_sixth_game(*args, **kwargs):
        if len(played) == 5:
            raise TrainingInterrupted(signal.SIGINT)
        played.append(args[2])  # the game's seed
        return play(*args, **kwargs)

    monkeypatch.setattr(tournament, "play_game", stopped_at_the_sixth_game)
    assert main(_evaluate_args(config, tmp_path / "cut")) == 128 + signal.SIGINT
    assert not (tmp_path / "cut" / "evaluation.json").exists()
    journal = (tmp_path / "cut" / "evaluation.games.jsonl").read_text().splitlines()
    assert len(journal) == 1 + 5 and "evaluation" in json.loads(journal[0])
    monkeypatch.setattr(tournament, "play_game", lambda *args, **kwargs: (played.append(args[2]), play(*args, **kwargs))[1])
    assert main(_evaluate_args(config, tmp_path / "cut", "--resume")) == 0
    assert len(played) == 12    # 5 before the stop, the other 7 of 3 pairings x 4 games after it
    resumed = json.loads((tmp_path / "cut" / "evaluation.json").read_text())
    assert resumed["pairings"] == whole["pairings"]
    # more games later: only the new ones are played
    assert main(_evaluate_args(config, tmp_path / "cut", "--resume", "--pairings", "random:greedy:6")) == 0
    assert len(played) == 14


def test_resume_refuses_the_games_of_another_evaluation(tmp_path, capsys):
    import yaml

    from training.evaluate import main
    from training.tournament import read_journal

    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"env": {"id": "sky_scrapers_v0", "options": TINY["env.options"]}}))
    assert main(_evaluate_args(config, tmp_path, "--pairings", "random:greedy")) == 0
    with pytest.raises(SystemExit):
        main(_evaluate_args(config, tmp_path, "--resume", "--seed", "7"))
    assert "holds games of another evaluation (it differs in seed)" in capsys.readouterr().err
    journal = tmp_path / "evaluation.games.jsonl"
    header = json.loads(journal.read_text().splitlines()[0])["evaluation"]
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines + ['{"a": "random", "b": "gre']))   # cut short by a kill: dropped
    assert sorted(read_journal(journal, header)[("random", "greedy")]) == [0, 1, 2, 3]
    journal.write_text("\n".join(lines[:2] + ["not json"] + lines[2:]))
    with pytest.raises(ValueError, match="line 3 is damaged"):
        read_journal(journal, header)


def _children(pid: int) -> list[int]:
    from pathlib import Path

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _running(pid: int) -> bool:
    from pathlib import Path

    try:  # a zombie has ended: only its exit status waits to be collected
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="reads processes from /proc (Linux)")
def test_sigterm_stops_an_evaluation_and_its_worker_processes(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = REPO_ROOT
    process = subprocess.Popen([sys.executable, "-m", "training.evaluate", "--env", "sky_scrapers_v0", "--agents",
                                "mcts@400", "greedy", "--games", "400", "--workers", "2", "--out", str(tmp_path)],
                               cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(_children(process.pid)) < 2 and time.monotonic() < deadline:  # the pool's workers started
            time.sleep(0.2)
        workers = _children(process.pid)
        assert len(workers) >= 2, "the evaluation started no worker processes"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 128 + signal.SIGTERM
        assert "evaluation stopped by signal SIGTERM" in process.stderr.read()
        assert (tmp_path / "evaluation.games.jsonl").is_file() and not (tmp_path / "evaluation.json").exists()
        deadline = time.monotonic() + 10
        while any(_running(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_running(pid) for pid in workers), "worker processes outlived the evaluation"
    finally:
        process.kill()
        process.wait()
