"""Where the exact endgame's solver budget goes: every position of real games, solved.

    python -m benchmarks.exact_budget --nodes 1000000 --games 6 --seed 500
    python -m benchmarks.exact_budget --nodes 1000000 --games 6 --seed 500 --ask moves

Plays ``--games`` games of an env that has a compiled solver (``Game.exact_solver``: Sky
Scrapers with two seats, the shipped network's options) between the shipped network, raw, and
``--opponent`` (seats swapped every other game; game g seeded ``--seed`` + g), and solves each
position the solver takes, within ``--nodes`` nodes, with one compiled solver kept from move to
move and game to game, as the search's exact endgame keeps it
(:class:`~sky_envs.agents.solver.MoveSolver`, without its learned reach: every position is
tried). ``--ask root`` (the default) asks what the exact endgame asks, the position's value and
the moves that keep it (``solve_root``); ``--ask moves`` every move's value (``solve_moves``,
what benchmark sets are labelled with). It prints, per distance from the end (the solver's
``remaining``: Sky Scrapers' stacks left), the positions met, how many were solved and the CPU
seconds spent: how far a budget reaches, and what the solves that run out of it cost.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

import numpy as np


def spend(env_id: str, nodes: int, games: int, seed: int, opponent: str, ask: str = "root") -> dict[int, dict]:
    """``{distance from the end: {"positions", "solved", "cpu_s"}}`` over ``games`` games."""
    import sky_envs
    from sky_envs.agents import make_agent
    from sky_envs.agents.checkpoint import read_checkpoint
    from sky_envs.agents.pretrained import pretrained_path

    options = read_checkpoint(pretrained_path(env_id))[0]["env_options"]
    game = sky_envs.make_game(env_id, **options)
    solver = game.exact_solver(max_nodes=nodes)
    if solver is None or not hasattr(solver, "remaining"):
        raise ValueError(f"{env_id} with {options} has no compiled solver that measures distances from the end")
    solve = solver.solve_root if ask == "root" else solver.solve_moves
    rows: dict[int, dict] = defaultdict(lambda: {"positions": 0, "solved": 0, "cpu_s": 0.0})
    network = make_agent("pretrained", env_id=env_id, env_options=options)
    other = make_agent(opponent, env_id=env_id, env_options=options)
    for g in range(games):
        network.reset(seed=seed + g)
        other.reset(seed=seed + g)
        state = game.new_initial_state(np.random.default_rng(seed + g))
        while state.current_player >= 0:
            if solver.refusal(state) is None:
                clock = time.process_time()
                solved = solve(state)
                row = rows[solver.remaining(state)]
                row["cpu_s"] += time.process_time() - clock
                row["positions"] += 1
                row["solved"] += solved is not None
            agent = network if (state.current_player + g) % 2 == 0 else other
            observation = {"observation": state.observation(state.current_player), "action_mask": state.legal_mask()}
            state.apply(agent.act(observation, state.clone()))
    return dict(sorted(rows.items(), reverse=True))


def main(argv: list[str] | None = None) -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="sky_scrapers_v0")
    parser.add_argument("--nodes", type=int, default=400_000, help="the solver's budget per position")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--opponent", default="mcts@100", help="the shipped network's opponent (an agent spec)")
    parser.add_argument("--ask", choices=("root", "moves"), default="root",
                        help="root: the value and the moves that keep it (the exact endgame's question); "
                             "moves: every move's value")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    if args.nodes < 1 or args.games < 1:
        parser.error("--nodes and --games must be positive")
    torch.set_num_threads(1)
    try:
        rows = spend(args.env, args.nodes, args.games, args.seed, args.opponent, args.ask)
    except ValueError as error:   # an env without a compiled solver, an unknown opponent
        parser.error(str(error))
    print(f"{'distance':>8} {'positions':>9} {'solved':>6} {'CPU s':>8}")
    for distance, row in rows.items():
        print(f"{distance:>8} {row['positions']:>9} {row['solved']:>6} {row['cpu_s']:>8.2f}")
    total = sum(row["cpu_s"] for row in rows.values())
    print(f"total {total:.1f} CPU s over {sum(row['positions'] for row in rows.values())} positions")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"env_id": args.env, "nodes": args.nodes, "ask": args.ask, "games": args.games,
                       "seed": args.seed, "opponent": args.opponent,
                       "rows": {str(k): v for k, v in rows.items()}}, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
