"""A short demo game: random play of any registered env, rendered as text.

    python -m sky_envs.demo                                  # Sky Scrapers, random board
    python -m sky_envs.demo --env sky_scrapers_v0 --seed 3 --option players=4
"""

from __future__ import annotations

import argparse
import ast

import numpy as np

import sky_envs

DEFAULT_OPTIONS = {"sky_scrapers_v0": {"board": "random", "positioning": "random"}}


def parse_option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def play(env_id: str, seed: int, options: dict, every: int) -> dict:
    env = sky_envs.make(env_id, render_mode="ansi", **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    print(f"== {env_id} {options} seed={seed}\n{env.render()}\n")
    steps = 0
    for agent in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        print(f"{agent}: {env.unwrapped.game_state.action_to_string(action)}")
        env.step(action)
        steps += 1
        if every and steps % every == 0:
            print(f"\n{env.render()}\n")
    print(f"\n== final position after {steps} decisions\n{env.render()}")
    final = env.unwrapped.game_state
    rewards = final.returns() if final.is_terminal() else np.zeros(final.num_players)
    print("rewards:", {f"player_{i}": float(r) for i, r in enumerate(rewards)})
    print("info:", info)
    return info


def main(argv: list[str] | None = None, prog: str = "python -m sky_envs.demo") -> None:
    from sky_envs.core.arguments import HelpFormatter

    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--env", default="sky_scrapers_v0", help=f"one of {sky_envs.env_ids()}")
    parser.add_argument("--seed", type=int, default=0, help="seed of the set-up and the random moves")
    parser.add_argument("--option", type=parse_option, action="append", default=[], help="an env option key=value")
    parser.add_argument("--every", type=int, default=10, help="render the position every N decisions (0: never)")
    args = parser.parse_args(argv)
    env_id = sky_envs.canonical_id(args.env)
    options = dict(args.option) if args.option else DEFAULT_OPTIONS.get(env_id, {})
    play(env_id, args.seed, options, args.every)


if __name__ == "__main__":
    main()
