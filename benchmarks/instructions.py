"""Machine instructions per step of the env loop of ``throughput.py``, counted by callgrind.

Timings on a shared machine move with its load between runs; instruction counts do not
depend on the load. For each env this runs the random-play loop of
``throughput.env_steps_per_second`` (its ``random_step``, the same seed) under
``valgrind --tool=callgrind`` twice, for ``--steps`` and for twice as many steps, and
reports the difference per step (start-up and imports cancel out); ``connect_four_v3``
(PettingZoo's) is accepted as an env id, and ``x c4`` is its count over the env's when it
is among the ids. ``PYTHONHASHSEED`` is fixed, yet runs of the same code still differ by
a few percent (memory addresses, garbage collection timing): a change smaller than that
needs several runs. numba-compiled kernels are compiled (and cached) in an unmeasured
first run. Needs ``valgrind`` on PATH. Example::

    python benchmarks/instructions.py connect_four_v3 golden_rush_v0 sky_towers_v0
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]  # this checkout's sky_envs, not an installed one

BASELINE = "connect_four_v3"


def play(env_id: str, steps: int, seed: int = 0) -> None:
    """``steps`` steps of throughput.py's env loop (resetting after each game)."""
    import numpy as np

    import sky_envs
    from throughput import random_step

    if env_id == BASELINE:
        from pettingzoo.classic import connect_four_v3

        env = connect_four_v3.env()
    else:
        env = sky_envs.make(env_id)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    while done < steps:
        for _ in env.agent_iter():
            if done == steps:
                return
            random_step(env, rng)
            done += 1
        env.reset()


def counted(env_id: str, steps: int) -> int:
    """Instructions of a whole process playing ``steps`` steps of ``env_id``."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               sys.executable, __file__, "--play", env_id, str(steps)]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"refs:\s*([\d,]+)", result.stderr)
    if result.returncode or not found:
        raise RuntimeError(f"callgrind run of {env_id} failed:\n{result.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("envs", nargs="+", help=f"env ids ({BASELINE} for PettingZoo's)")
    parser.add_argument("--steps", type=int, default=1500, help="steps counted per env (default 1500)")
    parser.add_argument("--play", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args(argv)
    if args.play:
        play(args.envs[0], int(args.envs[1]))
        return
    per_step = {}
    for env_id in args.envs:
        # numba keys its on-disk cache by CPU, and valgrind's simulated CPU is not the host's:
        # a first run under valgrind may compile the kernels (Scala, Sky Scrapers) and the next
        # load them, so one unmeasured run comes first and both measured runs load the cache
        counted(env_id, 1)
        per_step[env_id] = (counted(env_id, 2 * args.steps) - counted(env_id, args.steps)) / args.steps
        ratio = f"  {per_step[BASELINE] / per_step[env_id]:.2f}x c4" if BASELINE in per_step else ""
        print(f"{env_id:20} {per_step[env_id]:10,.0f} instructions/step{ratio}", flush=True)


if __name__ == "__main__":
    main()
