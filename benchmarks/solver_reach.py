"""How far before the end of real games the exact solver reaches, per game.

    python -m benchmarks.solver_reach --env highrise_heist_v0 scala_v0 skybridge_v0 \\
        --games 2 --seconds 10

Plays ``--games`` games per env between the shipped network and greedy (the pairing
``benchmarks.solved_positions`` draws positions from, seats swapped every other game), then
walks back from the end: at 1, 2, 3, ... decisions before it, solves every legal move of the
position (:meth:`~sky_envs.agents.solver.Solver.solve_moves` with the settings of the env's
:class:`~benchmarks.solved_positions.Recipe`, a fresh table each time, at most ``--seconds``)
and prints the nodes and seconds it took (``--value-only``: the position's value alone),
until ``--misses`` positions in a row are not solved within the budget. The deepest solved
distance is the solver's reach in that game: how deep a benchmark set of that env can sample
positions at this budget.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from benchmarks.solved_positions import PAIRINGS, RECIPES, env_options, play, torch_threads
from sky_envs.agents.solver import Solver
from sky_envs.core.registry import canonical_id, make_game


def reach(env_id: str, games: int, seconds: float, misses: int, max_plies_left: int, value_only: bool = False,
          log=print) -> list[dict]:
    """One row per position tried: game, plies left, moves, solved, nodes, seconds.
    ``value_only``: solve the position's value alone (:meth:`~sky_envs.agents.solver.Solver.solve`),
    not every move's."""
    recipe = RECIPES[env_id]
    options = env_options(env_id, recipe)
    game = make_game(env_id, **options)
    agents: dict = {}
    rows = []
    for number in range(games):
        specs = PAIRINGS[1] if number % 2 == 0 else PAIRINGS[1][::-1]
        history = play(game, specs, env_id, options, seed=10_000 + number, agents=agents)
        end = len(history) - 1
        missed = 0
        for plies_left in range(1, min(end, max_plies_left) + 1):
            state = game.state_from_text(history[end - plies_left].to_text(), rng=np.random.default_rng(0))
            solver = Solver(max_seconds=seconds, **recipe.solver)
            solution = solver.solve(state) if value_only else solver.solve_moves(state)
            row = {"env": env_id, "game": number, "plies_left": plies_left, "moves": len(state.legal_actions()),
                   "solved": solution.solved, "value": solution.value, "nodes": solution.nodes,
                   "seconds": round(solution.seconds, 2)}
            rows.append(row)
            log(json.dumps(row))
            missed = 0 if solution.solved else missed + 1
            if missed >= misses:
                break
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.solver_reach", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", nargs="+", required=True, help=f"env ids among {', '.join(sorted(RECIPES))}")
    parser.add_argument("--games", type=int, default=2, help="games per env (default 2)")
    parser.add_argument("--seconds", type=float, default=10.0, help="budget per position (default 10)")
    parser.add_argument("--misses", type=int, default=2, help="stop a game after this many unsolved in a row")
    parser.add_argument("--value-only", action="store_true",
                        help="solve each position's value alone, not every move's (which a benchmark set needs)")
    parser.add_argument("--max-plies-left", type=int, default=40, help="walk back at most this far (default 40)")
    args = parser.parse_args(argv)
    for env in args.env:
        if canonical_id(env) not in RECIPES:
            parser.error(f"no recipe for {env!r}: expected one of {', '.join(sorted(RECIPES))}")
    torch_threads(1)
    for env in args.env:
        rows = reach(canonical_id(env), args.games, args.seconds, args.misses, args.max_plies_left, args.value_only)
        for number in range(args.games):
            solved = [r for r in rows if r["game"] == number and r["solved"]]
            deepest = max(solved, key=lambda r: r["plies_left"], default=None)
            print(f"{env} game {number}: deepest solved {deepest['plies_left'] if deepest else 0} plies before the end"
                  + (f" ({deepest['nodes']:,} nodes, {deepest['seconds']} s)" if deepest else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
