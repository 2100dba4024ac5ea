"""Play any sky_envs game against an agent, or with friends on one keyboard (hot-seat).

    python -m sky_envs.play --env scala_v0 --opponent greedy
    python -m sky_envs.play --env sky_towers_v0 --opponent mcts@200 --seat 1 --seed 3
    python -m sky_envs.play --env skybridge_v0 --option players=3 --seat 0 --seat 1   # two humans, one agent
    python -m sky_envs.play --env sky_scrapers_v0 --opponent runs/x/final.pt@100 --position saved.txt
    python -m sky_envs.play --env scala_v0 --web                                    # in the browser

--opponent is any agent spec: random, greedy, mcts, mcts@N, pretrained (the network shipped
for the env), pretrained@N, PATH.pt, PATH.pt@N (search with
N simulations). Seats not given with --seat are played by it. In the game, type 'help'.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

import sky_envs
from sky_envs.core.arguments import HelpFormatter
from sky_envs.demo import parse_option
from sky_envs.play.session import PlaySession
from sky_envs.play.terminal import run_terminal


def build_parser(prog: str = "python -m sky_envs.play") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--env", default="scala_v0", help=f"one of {sky_envs.env_ids()}")
    parser.add_argument("--opponent", default="random", help="agent spec for the seats no human plays (random, greedy, mcts@N, alphabeta@N, pretrained, pretrained@N, PATH.pt, PATH.pt@N)")
    parser.add_argument("--seat", type=int, action="append", help="a seat a human plays (repeat for hot-seat; default 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the set-up and the agents")
    parser.add_argument("--position", help="a file holding a position text to start from")
    parser.add_argument("--option", type=parse_option, action="append", default=[], help="an env option key=value")
    parser.add_argument("--web", action="store_true", help="play in the browser instead of the terminal")
    parser.add_argument("--host", default="127.0.0.1", help="address the web server binds (127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000)
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m sky_envs.play") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        position = open(args.position).read() if args.position else None
        session_factory = partial(PlaySession, sky_envs.canonical_id(args.env), dict(args.option), args.opponent,
                                  args.seat or [0], args.seed, position)
        session = session_factory()           # bad options, seats, specs or positions fail here, before play
    except (OSError, ValueError) as error:
        parser.error(str(error))
    if args.web:
        from sky_envs.play.web import serve

        serve(session_factory, args.host, args.port)
        return 0
    try:
        run_terminal(session)
    except KeyboardInterrupt:
        print("\nleaving the game")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
