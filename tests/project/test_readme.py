"""README.md stays short and runs as written: its commands and its code example."""

import re
import shlex
import subprocess
import sys

from tests import REPO_ROOT
from tests.project.snippet_support import python_blocks

README = REPO_ROOT / "README.md"
MAX_LINES = 150


def command_after(marker: str) -> str:
    """The line under ``# <marker>:`` in README's first code block (what ``.ci/run`` reads)."""
    return README.read_text().split(f"# {marker}:", 1)[1].split("\n")[1]


def test_the_readme_is_short():
    lines = README.read_text().count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; keep it under {MAX_LINES} and move the rest to docs/"


def test_the_readme_opens_with_the_main_job_tests_and_docs_commands():
    first_block = README.read_text().split("```bash\n", 1)[1].split("```", 1)[0]
    assert [line.split(":")[0] for line in first_block.splitlines() if line.startswith("# ")] == \
        ["# main job", "# tests", "# docs"]
    assert command_after("tests").endswith("python -m pytest")
    assert "python -m sphinx -W -b html docs" in command_after("docs")


def test_the_code_example_runs(capsys):
    blocks = python_blocks(README.read_text())
    assert blocks, "README.md has no python example"
    for number, block in enumerate(blocks):
        exec(compile(block, f"README.md (python block {number})", "exec"), {"__name__": "readme_example"})
    assert "to_move" in capsys.readouterr().out   # the example ends by printing the final position text


def test_the_main_job_trains_and_ends_with_an_evaluation_table(tmp_path):
    """README's first command, on a budget: one rollout, one game per pairing."""
    command = shlex.split(command_after("main job").split(" && ")[-1])
    assert command[:3] == ["python", "-m", "training.train"]
    for flag, budget in (("--timesteps", "1"), ("--eval-games", "1")):
        command[command.index(flag) + 1] = budget
    done = subprocess.run([sys.executable, *command[1:], "--run-dir", str(tmp_path / "run"), "--no-progress"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "policy vs random" in done.stdout and "policy vs mcts" in done.stdout
    assert (tmp_path / "run" / "final.pt").is_file() and (tmp_path / "run" / "evaluation.json").is_file()


def test_every_link_of_the_readme_resolves():
    """Relative links and images (docs pages, GIFs, LICENSE...) name files of the checkout."""
    targets = re.findall(r"\]\(([^)\s]+)\)", README.read_text())
    local = [target.split("#", 1)[0] for target in targets if "://" not in target and not target.startswith("#")]
    assert local, "README.md links nothing of the checkout"
    missing = [target for target in local if not (REPO_ROOT / target).exists()]
    assert not missing, f"README.md links files that do not exist: {missing}"
