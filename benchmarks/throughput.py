"""Random-play throughput through ``env()``, side by side with PettingZoo's connect_four_v3.

    python benchmarks/throughput.py                 # every registered env, 3 s each
    python benchmarks/throughput.py --seconds 10 sky_scrapers_v0

Every env is driven by the same loop (``agent_iter`` / ``last`` / ``step`` with a uniformly
random legal action, resetting when the game ends), so the numbers compare like for like.
Timings are reported here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sky_envs


def steps_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        games += 1
        env.reset()
    return steps / (time.perf_counter() - start), games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("envs", nargs="*", help="env ids (default: all registered)")
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args(argv)
    from pettingzoo.classic import connect_four_v3

    baseline, _ = steps_per_second(connect_four_v3.env, args.seconds)
    print(f"{'env':<24}{'steps/s':>12}{'games':>8}{'x connect_four_v3':>20}")
    print(f"{'connect_four_v3':<24}{baseline:>12,.0f}{'':>8}{1.0:>20.2f}")
    for env_id in args.envs or sky_envs.env_ids():
        rate, games = steps_per_second(lambda: sky_envs.make(env_id), args.seconds)
        print(f"{env_id:<24}{rate:>12,.0f}{games:>8}{rate / baseline:>20.2f}")


if __name__ == "__main__":
    main()
