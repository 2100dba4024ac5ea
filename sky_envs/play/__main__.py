"""Play any sky_envs game against an agent, or with friends on one keyboard (hot-seat).

    python -m sky_envs.play --env scala_v0 --opponent greedy
    python -m sky_envs.play --env sky_towers_v0 --opponent mcts@200 --seat 1 --seed 3
    python -m sky_envs.play --env skybridge_v0 --option players=3 --seat 0 --seat 1   # two humans, one agent
    python -m sky_envs.play --env sky_scrapers_v0 --opponent runs/x/final.pt@100 --position saved.txt
    python -m sky_envs.play --env scala_v0 --web                                    # in the browser
    python -m sky_envs.play --env scala_v0 --web --watch pretrained greedy          # watch two agents
    python -m sky_envs.play --env golden_rush_v0 --web --watch greedy random mcts@50 random --pace 1

--opponent is any agent spec: random, greedy, mcts, mcts@N, pretrained (the network shipped
for the env), pretrained@N, PATH.pt, PATH.pt@N (search with
N simulations). Seats not given with --seat are played by it. In the game, type 'help'.
--watch plays agents against each other in the browser, one spec per seat (or one for all),
at the pace the page sets (--pace the first one).
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
    parser.add_argument("--watch", nargs="+", metavar="SPEC",
                        help="watch agents play each other in the browser: one agent spec per seat, or one for all seats")
    parser.add_argument("--pace", type=float, default=0.4,
                        help="seconds the page waits before each agent move (the page can change it)")
    return parser


def watch_specs(specs: list[str], num_players: int) -> list[str]:
    """One agent spec per seat from ``--watch``'s list: as given, or one spec for every seat."""
    if len(specs) == 1:
        return specs * num_players
    if len(specs) != num_players:
        raise ValueError(f"--watch got {len(specs)} agent specs for a {num_players}-player game: "
                         f"give one per seat ({num_players}) or one for all seats")
    return specs


def main(argv: list[str] | None = None, prog: str = "python -m sky_envs.play") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        if args.watch and (args.seat or not args.web):
            raise ValueError("--watch plays agents only, in the browser: add --web, and leave out --seat")
        if not 0 <= args.pace <= 60:
            raise ValueError(f"--pace must be 0 to 60 seconds, got {args.pace}")
        env_id = sky_envs.canonical_id(args.env)
        position = open(args.position).read() if args.position else None
        options = dict(args.option)
        if args.watch:
            players = sky_envs.make_game(env_id, **options).num_players
            opponent, seats = watch_specs(args.watch, players), []
        else:
            opponent, seats = args.opponent, args.seat or [0]
        session_factory = partial(PlaySession, env_id, options, opponent, seats, args.seed, position)
        session = session_factory()           # bad options, seats, specs or positions fail here, before play
    except (OSError, ValueError) as error:
        parser.error(str(error))
    if args.web:
        from sky_envs.play.web import serve

        serve(session_factory, args.host, args.port, pace_ms=round(args.pace * 1000))
        return 0
    try:
        run_terminal(session)
    except KeyboardInterrupt:
        print("\nleaving the game")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
