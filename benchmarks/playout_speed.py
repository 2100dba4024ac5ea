"""Milliseconds a playout of a search leaf costs, random and greedy, on the boards you name.

    python benchmarks/playout_speed.py
    python benchmarks/playout_speed.py --case "four seats 10x10" '{"players": 4, "board": "square", "rows": 10, "cols": 10, "positioning": "random"}'

Per case (a Sky Scrapers option set; by default the 6x6 two-seat game and four seats on
8x8 and 10x10 square boards) each kind of playout (``sky_envs.agents.playouts.playouts``:
``random`` and ``greedy``) is played ``--playouts`` times from each of ``--games`` starting
positions, as a search plays them; the best of ``--rounds`` rounds, in CPU milliseconds a
playout (``time.process_time``).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

CASES = {
    "6x6": {},
    "four seats 8x8": {"players": 4, "board": "square", "rows": 8, "cols": 8, "positioning": "random"},
    "four seats 10x10": {"players": 4, "board": "square", "rows": 10, "cols": 10, "positioning": "random"},
}
KINDS = ("random", "greedy")


def measure(options: dict, games: int, count: int, rounds: int) -> dict:
    """CPU milliseconds a playout of each kind, the best of ``rounds``."""
    import sky_envs
    from sky_envs.agents.playouts import playouts

    game = sky_envs.make_game("sky_scrapers_v0", **options)
    states = [game.new_initial_state(np.random.default_rng(seed)) for seed in range(games)]
    row = {}
    for kind in KINDS:
        playouts(states[:1], kind, np.random.default_rng(0))      # compiled at the first call, untimed
        best = float("inf")
        for round_ in range(rounds):
            clock = time.process_time()
            for state in states:
                playouts([state] * count, kind, np.random.default_rng(round_))
            best = min(best, (time.process_time() - clock) / (count * games))
        row[f"{kind}_ms"] = best * 1e3
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", nargs=2, action="append", metavar=("NAME", "OPTIONS_JSON"),
                        help="a case of your own (repeat for several) instead of the default ones")
    parser.add_argument("--games", type=int, default=8, help="starting positions, one game seed each")
    parser.add_argument("--playouts", type=int, default=32, help="playouts from each position, as one search batch")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    cases = {name: json.loads(options) for name, options in args.case} if args.case else CASES
    report = {}
    for name, options in cases.items():
        report[name] = {"options": options, **measure(options, args.games, args.playouts, args.rounds)}
        print(f"{name}: " + ", ".join(f"{kind} {report[name][f'{kind}_ms']:.3f} ms" for kind in KINDS), flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"games": args.games, "playouts": args.playouts, "rounds": args.rounds, "cases": report},
                      handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
