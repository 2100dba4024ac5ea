"""The installed package is the whole product: the wheel carries training, the shipped
checkpoints and the default configs, and the ``sky-envs`` command runs outside the clone."""

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests import REPO_ROOT

GAMES = ["golden_rush", "highrise_heist", "scala", "sky_scrapers", "sky_towers", "skybridge"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(REPO_ROOT)], check=True, cwd=out)
    (path,) = out.glob("sky_envs-*.whl")
    return path


def test_wheel_lists_every_shipped_checkpoint_and_default_config(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for env_dir in sorted((REPO_ROOT / "checkpoints").glob("*/policy.pt")):
        env_id = env_dir.parent.name
        assert f"sky_envs/checkpoints/{env_id}/policy.pt" in names
        assert f"sky_envs/checkpoints/{env_id}/report.json" in names
    for extra in sorted((REPO_ROOT / "checkpoints").glob("*/pretrained.json")):   # an env shipping several networks
        assert f"sky_envs/checkpoints/{extra.parent.name}/pretrained.json" in names
        for network in json.loads(extra.read_text())["networks"]:
            assert f"sky_envs/checkpoints/{extra.parent.name}/{network['file']}" in names
    for game in GAMES:
        assert f"sky_envs/configs/{game}.yaml" in names
    assert "sky_envs/training/train.py" in names and "sky_envs/benchmarks/throughput.py" in names
    assert not any(name.startswith(("training/", "benchmarks/", "checkpoints/", "configs/")) for name in names)
    entry_points = next(name for name in names if name.endswith("entry_points.txt"))
    assert "sky-envs = sky_envs.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_wheel_runs_outside_the_clone(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    work = tmp_path / "work"
    work.mkdir()
    environ = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}

    def run(*args: str) -> str:
        done = subprocess.run(list(args), cwd=work, env=environ, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    command = str(env_dir / "bin" / "sky-envs")
    assert "usage: sky-envs SUBCOMMAND" in run(command, "--help")
    site = run(str(python), "-c", "import sky_envs, importlib.util; print(sky_envs.__file__); "
                                  "print(importlib.util.find_spec('training'))")
    assert str(env_dir) in site and site.split("\n")[1] == "None"   # the wheel's, and no top-level training
    table = run(command, "evaluate", "--env", "scala_v0", "--agents", "pretrained", "greedy", "--games", "2")
    assert "pretrained vs greedy" in table
    trained = run(command, "train", "--env", "highrise_heist_v0", "--timesteps", "2048", "--eval-games", "2",
                  "--no-progress")
    assert "policy vs random" in trained and list(work.glob("runs/highrise_heist_v0-*/evaluation.json"))
    run(str(python), "-c", "from sky_envs.agents import make_agent; make_agent('pretrained@8', env_id='sky_towers_v0')")
    where = run(str(python), "-c", "from sky_envs.agents.pretrained import pretrained_path; print(pretrained_path("
                                   "'sky_scrapers_v0', {'board': 'square', 'rows': 8, 'cols': 8}))")
    assert where.strip().endswith("sky_envs/checkpoints/sky_scrapers_v0/universal.pt")   # the network for every board


def test_gymnasium_make_imports_sky_envs_itself():
    code = ("import sys, gymnasium\n"
            "env = gymnasium.make('sky_envs:sky_envs/sky_scrapers-v0')\n"
            "observation, info = env.reset(seed=0)\n"
            "assert observation.shape == env.observation_space.shape and info['action_mask'].any()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
