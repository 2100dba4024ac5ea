"""Moves per second of search agents, side by side on the same positions.

    python benchmarks/search_speed.py sky_scrapers_v0 scala_v0
    python benchmarks/search_speed.py --agents pretrained@32+gumbel pretrained@200 --positions 30 --json speed.json
    python benchmarks/search_speed.py sky_scrapers_v0 --positions 120 --warmup 400
    python benchmarks/search_speed.py sky_scrapers_v0 --option players=4 --option rows=8 --option cols=8

Per env (with the options of its shipped network, or those of ``--option``, the same for
every env named; ``pretrained`` specs resolve to the network that plays them) every agent
decides the same ``--positions`` positions, met in random games; the agents take
turns position by position so that both meet the same machine. A rate is decisions per
second of this process's CPU time (``time.process_time``, torch on one thread), which other
jobs on a shared machine disturb much less than wall time (also reported). ``--warmup N``
first lets every agent decide N other positions, untimed: an agent that learns as it plays
(the exact endgame learns how far from the end its solver's budget reaches, and keeps the
solver's table) is then timed as it plays after many games rather than in its first moves.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def positions(game, count: int, seed: int) -> list:
    """``count`` positions of random games, one every few plies (clones, so they stay live)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state(rng)
        while state.current_player >= 0 and len(out) < count:
            if rng.random() < 0.2:
                out.append(state.clone())
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(legal.size)]))
    return out


def measure(env_id: str, specs: list[str], count: int, seed: int, warmup: int = 0,
            options: dict | None = None) -> dict:
    import sky_envs
    from sky_envs.agents import make_agent
    from sky_envs.agents.checkpoint import read_checkpoint
    from sky_envs.agents.pretrained import pretrained_path

    if options is None:
        options = read_checkpoint(pretrained_path(env_id))[0]["env_options"]
    game = sky_envs.make_game(env_id, **options)
    agents = [make_agent(spec, seed=seed, env_id=env_id, env_options=options) for spec in specs]
    warmup_positions = positions(game, warmup, seed + 1) if warmup else []
    for state in warmup_positions:
        observation = {"observation": state.observation(state.current_player), "action_mask": state.legal_mask()}
        for agent in agents:
            agent.act(observation, state.clone())
    cpu, wall = np.zeros(len(agents)), np.zeros(len(agents))
    for state in positions(game, count, seed):
        observation = {"observation": state.observation(state.current_player), "action_mask": state.legal_mask()}
        for k, agent in enumerate(agents):
            started, clock = time.perf_counter(), time.process_time()
            agent.act(observation, state.clone())
            cpu[k] += time.process_time() - clock
            wall[k] += time.perf_counter() - started
    return {spec: {"moves_per_cpu_s": count / c, "moves_per_wall_s": count / w, "positions": count}
            for spec, c, w in zip(specs, cpu, wall)}


def main(argv: list[str] | None = None) -> int:
    import torch

    from sky_envs import BUILTIN_ENV_IDS
    from sky_envs.demo import parse_option

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("envs", nargs="*", default=list(BUILTIN_ENV_IDS))
    parser.add_argument("--agents", nargs="+", default=["pretrained@32+gumbel", "pretrained@200"])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warmup", type=int, default=0, help="positions each agent decides first, untimed")
    parser.add_argument("--option", type=parse_option, action="append", default=[],
                        help="an env option key=value (repeat for several) instead of the shipped network's options")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    options = dict(args.option) or None
    torch.set_num_threads(1)
    report = {}
    for env_id in args.envs:
        report[env_id] = measure(env_id, args.agents, args.positions, args.seed, args.warmup, options)
        print(env_id, "  ".join(f"{spec}: {row['moves_per_cpu_s']:.2f} moves/CPU s ({row['moves_per_wall_s']:.2f}/wall s)"
                                for spec, row in report[env_id].items()), flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"agents": args.agents, "positions": args.positions, "warmup": args.warmup, "seed": args.seed,
                       "options": options, "envs": report},
                      handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
