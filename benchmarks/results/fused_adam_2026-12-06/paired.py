"""Paired learner steps/s of two commits, each with its own code and configs: the runs of the
two alternate (A B, B A, ...) in fresh processes, so a drift of the machine's speed falls on
both, and the ratio is taken pair by pair. A process trains its config for one rollout
(unmeasured), then for 2 and for 6 rollouts; its rate is the marginal one between the two, as
benchmarks/training_throughput.py measures it.

    python benchmarks/results/fused_adam_2026-12-06/paired.py d98ec6e HEAD highrise_heist golden_rush scala

Run from the repository root: each commit is checked out into a temporary git worktree.
"""

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RATE = r"""
import os, sys, tempfile, time
root = sys.argv[1]
sys.path.insert(0, root)
os.chdir(root)
import sky_envs
assert sky_envs.__file__.startswith(root), sky_envs.__file__
from training.config import load_config
from training.selfplay import SelfPlayRun
config = load_config(sys.argv[2])

def run(steps):
    c = {**config, "train": {**config["train"], "timesteps": steps}}
    with tempfile.TemporaryDirectory() as d:
        r = SelfPlayRun(c, d, progress=False, log=lambda *a: None)
        start = time.perf_counter()
        r.train()
        return r.steps_done, time.perf_counter() - start

rollout = config["train"]["n_envs"] * config["ppo"]["n_steps"]
run(rollout)
small, large = run(2 * rollout), run(6 * rollout)
print((large[0] - small[0]) / (large[1] - small[1]))
"""


def rate(tree: Path, config: str) -> float:
    out = subprocess.run([sys.executable, "-c", RATE, str(tree), f"configs/{config}.yaml"], check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main(old: str, new: str, configs: list[str], pairs: int = 5) -> None:
    with tempfile.TemporaryDirectory() as folder:
        trees = {}
        for name, commit in (("old", old), ("new", new)):
            trees[name] = Path(folder) / name
            subprocess.run(["git", "worktree", "add", "--detach", "-q", str(trees[name]), commit], check=True)
        try:
            for config in configs:
                ratios = []
                for i in range(pairs):
                    order = ("old", "new") if i % 2 == 0 else ("new", "old")
                    rates = {name: rate(trees[name], config) for name in order}
                    ratios.append(rates["new"] / rates["old"])
                    print(f"{config} pair {i + 1}: {old} {rates['old']:,.0f}, {new} {rates['new']:,.0f} learner steps/s",
                          flush=True)
                print(f"{config}: median ratio {statistics.median(ratios):.3f} (pairs {min(ratios):.3f}-{max(ratios):.3f})")
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], check=False)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
