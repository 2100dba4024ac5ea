"""The README's main job and "Use with ..." snippets run as written (each with its framework)."""

import re
import shlex
import subprocess
import sys

import pytest

from tests.integrations.framework_support import framework
from tests import REPO_ROOT

README = REPO_ROOT / "README.md"
FRAMEWORK_MODULES = {"Stable-Baselines3": "sb3_contrib", "Ray RLlib": "ray.rllib", "TorchRL": "torchrl",
                     "Tianshou": "tianshou"}


def use_with_snippets() -> dict[str, str]:
    """``{framework: its python code}`` from the "Use with RL frameworks" section."""
    text = README.read_text()
    section = text.split("## Use with RL frameworks", 1)[1].split("\n## ", 1)[0]
    snippets = {}
    for part in section.split("\n### Use with ")[1:]:
        title = part.split("\n", 1)[0]
        blocks = re.findall(r"```python\n(.*?)```", part, flags=re.S)
        name = next(key for key in FRAMEWORK_MODULES if title.startswith(key))
        snippets[name] = "\n".join(blocks)
    return snippets


def test_every_framework_has_a_snippet():
    snippets = use_with_snippets()
    assert set(snippets) == set(FRAMEWORK_MODULES) and all(snippets.values())


@pytest.mark.parametrize("name", sorted(FRAMEWORK_MODULES))
def test_use_with_snippet_runs(name, tmp_path, monkeypatch):
    framework(FRAMEWORK_MODULES[name])
    monkeypatch.chdir(tmp_path)   # snippets may write runs/...
    namespace = {"__name__": "readme_snippet"}
    try:
        exec(compile(use_with_snippets()[name], f"README.md (Use with {name})", "exec"), namespace)
    finally:
        if name == "Ray RLlib":
            import ray

            ray.shutdown()
    expected = {"Stable-Baselines3": "mean_reward", "Ray RLlib": "agent", "TorchRL": "winners", "Tianshou": "result"}
    assert expected[name] in namespace
    if name == "Ray RLlib":
        assert (tmp_path / "runs" / "rllib_policy.pt").is_file()
    if name == "TorchRL":
        assert tuple(namespace["winners"].shape) == (200, 1, 4)
    if name == "Tianshou":
        assert namespace["result"].n_collected_episodes == 2


def test_the_main_job_trains_and_ends_with_an_evaluation_table(tmp_path):
    """README's first command, on a budget: one rollout, one game per pairing."""
    install_and_train = README.read_text().split("# main job:", 1)[1].split("\n")[1]
    command = shlex.split(install_and_train.split(" && ")[-1])
    assert command[:3] == ["python", "-m", "training.train"]
    for flag, budget in (("--timesteps", "1"), ("--eval-games", "1")):
        command[command.index(flag) + 1] = budget
    root = README.parent
    done = subprocess.run([sys.executable, *command[1:], "--run-dir", str(tmp_path / "run"), "--no-progress"],
                          cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "policy vs random" in done.stdout and "policy vs mcts" in done.stdout
    assert (tmp_path / "run" / "final.pt").is_file() and (tmp_path / "run" / "evaluation.json").is_file()
