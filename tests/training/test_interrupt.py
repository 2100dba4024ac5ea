"""Interrupted training: Ctrl-C and SIGTERM save the run, --resume finishes it exactly as an
uninterrupted run would, and nothing an interrupted write leaves behind survives a resume."""

import json
import os
import random
import signal
import threading

import pytest
import torch
from stable_baselines3.common.callbacks import BaseCallback

from tests.training.training_support import quiet, tiny_config
from training.signals import TrainingInterrupted, interrupts_as_keyboard, open_autocast_regions
from training.selfplay import SelfPlayRun
from tests import REPO_ROOT


class StopAt(BaseCallback):
    """Interrupts the run once ``steps`` learner steps are collected: raises ``KeyboardInterrupt``
    (what Ctrl-C does) or sends the process a real signal."""

    def __init__(self, steps: int, signum: int | None = None):
        super().__init__()
        self.steps, self.signum = steps, signum

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.steps:
            if self.signum is None:
                raise KeyboardInterrupt
            os.kill(os.getpid(), self.signum)
        return True


def finished_run(run_dir, config):
    run = SelfPlayRun(config, run_dir, progress=False, log=quiet)
    run.train()
    return run


def checkpoints(run_dir) -> list[str]:
    return sorted(p.name for p in (run_dir / "checkpoints").glob("*.pt"))


@pytest.mark.parametrize("signum", [None, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_resumed_run_does_what_an_uninterrupted_run_does(tmp_path, signum):
    config = tiny_config()
    whole = finished_run(tmp_path / "whole", config)
    run_dir = tmp_path / "interrupted"
    first = SelfPlayRun(config, run_dir, progress=False, log=quiet)
    with pytest.raises(KeyboardInterrupt) as stopped:
        first.train(callback=StopAt(160, signum))  # in the third rollout of 64 steps
    if signum is not None:
        assert isinstance(stopped.value, TrainingInterrupted) and stopped.value.signum == signum
    saved = json.loads((run_dir / "run_state.json").read_text())
    assert saved["steps_done"] == 128  # the last rollout trained on, not the steps collected since
    assert saved["seconds"] > 0
    assert first.model._n_updates == 2 * config["ppo"]["n_epochs"]
    with pytest.raises(ValueError, match="already holds a run"):
        SelfPlayRun(config, run_dir, progress=False).train()
    second = SelfPlayRun(config, run_dir, progress=False, log=quiet)
    second.train(resume=True)
    assert second.steps_done == whole.steps_done == 256
    assert second.seconds > saved["seconds"]  # the time before the interruption counts too
    assert second.model._n_updates == whole.model._n_updates  # the same number of PPO updates
    assert checkpoints(run_dir) == checkpoints(tmp_path / "whole")


def test_sigterm_before_the_first_checkpoint_still_saves_a_resumable_run(tmp_path):
    config = tiny_config(**{"train.checkpoint_every": 10_000})
    with pytest.raises(TrainingInterrupted):
        SelfPlayRun(config, tmp_path, progress=False, log=quiet).train(callback=StopAt(100, signal.SIGTERM))
    assert json.loads((tmp_path / "run_state.json").read_text())["steps_done"] == 64
    resumed = SelfPlayRun(config, tmp_path, progress=False, log=quiet)
    assert resumed.train(resume=True).is_file() and resumed.steps_done == 256


def test_a_signal_during_a_save_waits_until_the_files_are_whole(tmp_path):
    class SignalledRun(SelfPlayRun):
        def save(self, model, vec, checkpoint):
            if checkpoint:
                os.kill(os.getpid(), signal.SIGTERM)  # arrives while the checkpoint is being written
            return super().save(model, vec, checkpoint)

    with pytest.raises(TrainingInterrupted):
        SignalledRun(tiny_config(), tmp_path, progress=False, log=quiet).train()
    assert checkpoints(tmp_path) == ["step_000000128.pt"]
    assert json.loads((tmp_path / "run_state.json").read_text())["steps_done"] == 128
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_resume_removes_what_interrupted_writes_left(tmp_path):
    config = tiny_config()
    with pytest.raises(KeyboardInterrupt):
        SelfPlayRun(config, tmp_path, progress=False, log=quiet).train(callback=StopAt(160))
    leftovers = [tmp_path / "model_latestk3j2h1.zip",                   # earlier versions' temp model
                 tmp_path / "model_latest.zip.a8d7s6.tmp",
                 tmp_path / "run_state.jsonq9w8e7.tmp",
                 tmp_path / "checkpoints" / "step_000000192.ptz1x2c3.tmp",  # save_checkpoint's temp file
                 tmp_path / "final.pt.p0o9i8.tmp"]
    for path in leftovers:
        path.write_bytes(b"half")
    (tmp_path / "notes.txt").write_text("mine")
    logged = []
    SelfPlayRun(config, tmp_path, progress=False, log=logged.append).train(resume=True)
    assert not any(path.exists() for path in leftovers)
    assert (tmp_path / "notes.txt").read_text() == "mine" and (tmp_path / "model_latest.zip").is_file()
    assert sum("left by an interrupted write" in line for line in logged) == len(leftovers)


def test_a_run_resumes_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = tiny_config()
    with pytest.raises(KeyboardInterrupt):
        SelfPlayRun(config, "runs/demo", progress=False, log=quiet).train(callback=StopAt(160))
    state = json.loads((tmp_path / "runs/demo/run_state.json").read_text())
    assert state["pool"] == ["checkpoints/step_000000128.pt"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    run = SelfPlayRun(config, tmp_path / "runs" / "demo", progress=False, log=quiet)
    assert run.train(resume=True).is_file() and run.steps_done == 256


def test_resume_refuses_a_folder_without_a_run(tmp_path):
    with pytest.raises(ValueError, match="holds no run_state.json"):
        SelfPlayRun(tiny_config(), tmp_path, progress=False).train(resume=True)


@pytest.mark.slow  # two processes that import torch; the tests above cover the same handling in-process
def test_the_command_saves_on_sigterm_and_resumes(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import yaml

    from tests.training.training_support import TINY

    root = REPO_ROOT
    config = {"env": {"id": TINY["env.id"], "options": TINY["env.options"]}}
    for dotted, value in TINY.items():
        section, _, key = dotted.partition(".")
        if section != "env":
            config.setdefault(section, {}).update({key: value} if key else value)
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(config))
    command = [sys.executable, "-m", "training.train", "--no-progress"]
    run_dir = tmp_path / "run"
    process = subprocess.Popen(command + ["--config", str(tmp_path / "tiny.yaml"), "--run-dir", str(run_dir),
                                          "--timesteps", "100000000"],
                               cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in process.stdout:  # training is under way (and the handlers installed) once a checkpoint is logged
        lines.append(line)
        if "checkpoint" in line:
            process.send_signal(signal.SIGTERM)
            break
    lines += process.stdout.readlines()
    assert process.wait(timeout=60) == 128 + signal.SIGTERM, "".join(lines)
    assert any("interrupted at step" in line for line in lines)
    resumed = subprocess.run(command + ["--resume", str(run_dir), "--timesteps", "512", "--eval-games", "2"],
                             cwd=root, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "trained 512 steps" in resumed.stdout and "policy vs random" in resumed.stdout


def test_a_scala_run_trains_only_its_heads_possible_rows_and_resumes_them(tmp_path):
    """Scala's dense head keeps only the rows of moves that can be legal (PossibleRowsLinear):
    the optimizer state saved for a resume is theirs, a resume rebuilds the same head, and
    the checkpoints hold the full head, which the agents load."""
    from sky_envs.agents import PolicyAgent
    from sky_envs.agents.possible_rows import PossibleRowsLinear

    config = tiny_config(**{"env.id": "scala_v0", "env.options": {}})
    run_dir = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        SelfPlayRun(config, run_dir, progress=False, log=quiet).train(callback=StopAt(160))
    resumed = SelfPlayRun(config, run_dir, progress=False, log=quiet)
    final = resumed.train(resume=True)
    head = resumed.model.policy.action_net
    assert isinstance(head, PossibleRowsLinear) and head.weight.shape == (2420, 32)
    moments = resumed.model.policy.optimizer.state[head.weight]["exp_avg"]
    assert moments.shape == (2420, 32) and moments.abs().sum() > 0     # loaded from the resume file, then trained
    agent = PolicyAgent.load(final, env_id="scala_v0")
    assert type(agent.policy.action_net) is torch.nn.Linear and agent.policy.action_net.weight.shape == (7744, 32)


def test_an_interrupt_inside_torchs_context_managers_leaves_no_mode_behind():
    """A signal lands where it lands, also inside ``torch.no_grad().__enter__`` once gradients
    are off (no ``__exit__`` follows) or inside ``torch.autocast``'s ``__enter__`` once it
    counted its region. Leaving ``interrupts_as_keyboard`` puts gradients, autocast and its
    cache of casts back as they were: the next run in the process trains."""
    nesting_before = open_autocast_regions()
    with pytest.raises(KeyboardInterrupt):
        with interrupts_as_keyboard():
            torch.no_grad().__enter__()                           # interrupted before its with-block
            torch.autocast("cpu", dtype=torch.bfloat16).__enter__()
            raise KeyboardInterrupt
    assert torch.is_grad_enabled() and not torch.is_autocast_enabled("cpu")
    assert open_autocast_regions() == nesting_before
    weight = torch.nn.Parameter(torch.ones(2, 2))
    assert (torch.ones(1, 2) @ weight).sum().requires_grad


def test_real_signals_at_random_moments_never_leave_gradients_off():
    """SIGTERM from another thread into a loop of ``with torch.no_grad()``: without the
    restore, about a quarter of the tries ended with gradients off."""
    for trial in range(60):
        sender = threading.Timer(random.Random(trial).uniform(0.0, 0.002), os.kill, (os.getpid(), signal.SIGTERM))
        with pytest.raises(TrainingInterrupted):
            with interrupts_as_keyboard():
                sender.start()
                while True:
                    with torch.no_grad():
                        pass
        sender.join()
        assert torch.is_grad_enabled(), f"try {trial}"
