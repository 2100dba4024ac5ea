"""Benchmark sets of exactly solved positions, and the mistake rates of agents on them.

    python -m benchmarks.solved_positions make --env sky_scrapers_v0 --count 1000
    python -m benchmarks.solved_positions mistakes --env sky_scrapers_v0 \\
        --agents pretrained pretrained@200 greedy mcts@400 alphabeta@2 --json mistakes.json

``make`` plays games between the shipped agents and the baselines (:data:`PAIRINGS`, seats
swapped every other game), samples positions from them at the depths the env's
:class:`Recipe` names (Sky Scrapers: 10 to 20 stacks left; the others: the last plies
before the end), solves every legal move of each exactly (:class:`~sky_envs.agents.solver.Solver`
within a node budget) and appends the positions where the choice matters (not every move of
the same value) to ``benchmarks/solved/<env_id>.jsonl``. It resumes where it stopped: the
file's games are skipped, and ``<env_id>.progress.json`` beside it counts what was played,
dropped (unsolved within the budget, or no choice) and the seconds spent.

The file's first line is a header (``{"header": {...}}``: env, options, the command, the
recipe); each following line is one position::

    {"game": 12, "ply": 19, "left": 14, "seat": 1, "position": "<the position text>",
     "value": 1.0, "moves": {"c3>NE": 1.0, "d4>S": -1.0, ...}, "nodes": 5521, "seconds": 0.4}

``value`` and the move values are exact, for the seat to move: +1 a forced win, 0 a draw, -1
a loss. ``mistakes`` plays each agent once on every position of a set and reports the share
of positions where its move has a lower value than the position (a mistake), with a 95%
Wilson interval, as a table and (``--json``) a file; ``--by left`` and ``--by value`` break the
rates down by how far from the end the positions are and by their exact value, beside what a
mover picking uniformly among the legal moves would err there.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from sky_envs.agents import make_agent
from sky_envs.agents.solver import Solver
from sky_envs.core.registry import canonical_id, make_game
from sky_envs.core.state import GameState
from sky_envs.core.replay_file import start_state

SETS = Path(__file__).resolve().parent / "solved"
FORMAT = "sky_envs solved positions 1"
#: who plays the games positions are drawn from, cycled by game number (seats swapped on
#: every other game): the shipped network against MCTS and greedy, and the two baselines
PAIRINGS = (("pretrained", "mcts@100"), ("pretrained", "greedy"), ("mcts@100", "greedy"))


def stacks_left(state: GameState) -> int:
    """Sky Scrapers: the stacks on the board once stacks move (each move merges two, so one
    fewer per move); -1 before (a random board may have fewer cells than the range's top)."""
    return int((state.heights[:-1] > 0).sum()) if state.phase == "move" else -1


@dataclass(frozen=True)
class Recipe:
    """Which positions of an env's games a set holds and how they are solved.

    ``depth`` measures a position (``"stacks"``: stacks left, Sky Scrapers; ``"plies_left"``:
    decisions left before the end of the game it comes from); positions with
    ``low <= depth <= high`` are candidates, ``per_game`` of them are drawn per game at
    distinct depths. ``max_nodes``: the solver's budget per position (all its moves).
    ``options``: the env options (``None``: those of the shipped checkpoint). ``compiled``:
    label with the game's compiled solver (``Game.exact_solver``; Sky Scrapers:
    :class:`~sky_envs.games.sky_scrapers.solver_kernels.CompiledSolver`, ten times the
    speed), else :class:`~sky_envs.agents.solver.Solver` with the ``solver`` settings.
    ``pairings``: who plays the games (agent specs), cycled by game number.
    """

    depth: str
    low: int
    high: int
    per_game: int = 4
    max_nodes: int = 6_000_000
    options: dict | None = None
    compiled: bool = False
    solver: dict = field(default_factory=dict)
    pairings: tuple = PAIRINGS

    def describe(self) -> str:
        what = "stacks left" if self.depth == "stacks" else "decisions left before the end of the game played"
        return f"positions with {self.low} to {self.high} {what}"


RECIPES = {
    "sky_scrapers_v0": Recipe("stacks", 10, 20, max_nodes=40_000_000, compiled=True),
    "highrise_heist_v0": Recipe("plies_left", 1, 8, per_game=3, max_nodes=300_000),
    "skybridge_v0": Recipe("plies_left", 1, 16, per_game=3, max_nodes=300_000),
    "scala_v0": Recipe("plies_left", 1, 6, per_game=3, max_nodes=300_000, solver={"max_plies": 6, "deepening": True}),
}
DEPTHS: dict[str, Callable] = {"stacks": lambda state, plies_left: stacks_left(state),
                               "plies_left": lambda state, plies_left: plies_left}


def set_path(env_id: str) -> Path:
    return SETS / f"{env_id}.jsonl"


def env_options(env_id: str, recipe: Recipe) -> dict:
    """The recipe's options, else those the shipped checkpoint was trained on."""
    if recipe.options is not None:
        return dict(recipe.options)
    from sky_envs.agents.checkpoint import read_checkpoint
    from sky_envs.agents.pretrained import pretrained_path

    metadata, _ = read_checkpoint(pretrained_path(env_id))
    return dict(metadata.get("env_options", {}))


# ---------------------------------------------------------------------- reading sets
def read_set(path: str | os.PathLike) -> tuple[dict, list[dict]]:
    """The header and positions of a set file; ``ValueError`` naming the line if malformed."""
    path = Path(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise ValueError(f"{path}: empty file, expected a header line then one position per line")
    try:
        header = json.loads(lines[0])["header"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise ValueError(f"{path}:1: expected the header line {{\"header\": {{...}}}}") from None
    if header.get("format") != FORMAT:
        raise ValueError(f"{path}:1: format {header.get('format')!r}, expected {FORMAT!r}")
    positions = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = json.loads(line)
            missing = {"game", "ply", "seat", "position", "value", "moves"} - set(entry)
        except (json.JSONDecodeError, TypeError):
            raise ValueError(f"{path}:{number}: not a JSON object") from None
        if missing:
            raise ValueError(f"{path}:{number}: missing {sorted(missing)}")
        positions.append(entry)
    return header, positions


def load_position(game, entry: dict) -> GameState:
    """The state of a set entry, checked against it: the seat to move and the legal moves."""
    state = game.state_from_text(entry["position"], rng=np.random.default_rng(0))
    if state.current_player != entry["seat"]:
        raise ValueError(f"game {entry['game']} ply {entry['ply']}: player_{state.current_player} moves in the "
                         f"position, the set says player_{entry['seat']}")
    legal = sorted(state.action_to_string(int(a)) for a in state.legal_actions())
    if legal != sorted(entry["moves"]):
        raise ValueError(f"game {entry['game']} ply {entry['ply']}: the legal moves {legal} differ from the "
                         f"set's {sorted(entry['moves'])}")
    return state


# ---------------------------------------------------------------------- making sets
def play(game, specs: tuple[str, str], env_id: str, options: dict, seed: int, agents: dict) -> list[GameState]:
    """Every position of one game between ``specs`` (seat order) up to and with its end."""
    players = []
    for seat, spec in enumerate(specs):
        if spec not in agents:
            agents[spec] = make_agent(spec, seed=seed, env_id=env_id, env_options=options)
        agent = agents[spec]
        agent.reset(seed=seed * 17 + seat)
        players.append(agent)
    state = start_state(game, seed)
    history = [state.clone()]
    while state.current_player >= 0:
        seat = state.current_player
        observation = {"observation": state.observation(seat), "action_mask": state.legal_mask().astype(np.int8)}
        state.apply(players[seat].act(observation, state))
        history.append(state.clone())
    return history


class Labeller:
    """Solves positions of one game for a recipe: every legal move's exact value."""

    def __init__(self, game, recipe: Recipe):
        if recipe.compiled:
            self.compiled = game.exact_solver(max_nodes=recipe.max_nodes)
            if self.compiled is None:
                raise ValueError(f"the recipe asks for a compiled solver; {game.env_id} with {game.options()} has none")
        else:
            self.compiled = None
            self.solver = Solver(max_nodes=recipe.max_nodes, **recipe.solver)

    def label(self, state: GameState) -> tuple[dict | None, float]:
        """The set entry of ``state`` (its exact value and each move's), ``None`` if unsolved
        within the budget; and the seconds the solve took."""
        started = time.perf_counter()
        if self.compiled is not None:
            moves, nodes = self.compiled.solve_moves(state), self.compiled.nodes
        else:
            self.solver.clear()
            solution = self.solver.solve_moves(state)
            moves, nodes = (solution.moves if solution.solved else None), solution.nodes
        seconds = time.perf_counter() - started
        if moves is None:
            return None, seconds
        entry = {"seat": int(state.current_player), "position": state.to_text(), "value": max(moves.values()),
                 "moves": {state.action_to_string(a): v for a, v in moves.items()},
                 "nodes": nodes, "seconds": round(seconds, 3)}
        return entry, seconds


def make_set(env_id: str, count: int, out: Path | None = None, seed: int = 0, log=print,
             recipe: Recipe | None = None) -> Path:
    """Play, sample and solve until the set at ``out`` holds ``count`` positions (resuming);
    ``recipe``: instead of the env's in :data:`RECIPES`."""
    env_id = canonical_id(env_id)
    if recipe is None and env_id not in RECIPES:
        raise ValueError(f"no benchmark recipe for {env_id!r}: recipes exist for {sorted(RECIPES)}")
    recipe = recipe or RECIPES[env_id]
    options = env_options(env_id, recipe)
    game = make_game(env_id, **options)
    out = Path(out) if out is not None else set_path(env_id)
    progress_path = out.with_suffix(".progress.json")
    header = {"format": FORMAT, "env_id": env_id, "env_options": options, "seed": seed,
              "command": f"python -m benchmarks.solved_positions make --env {env_id} --count {count}"
                         + (f" --seed {seed}" if seed else ""),
              "selection": recipe.describe() + ", only those where the moves' values differ",
              "recipe": asdict(recipe),
              "value": "exact, for the seat to move: +1 forced win, 0 draw, -1 loss"}
    header = json.loads(json.dumps(header))   # as the file holds it: lists, not tuples
    if out.exists():
        old, positions = read_set(out)
        for key in ("env_id", "env_options", "seed"):
            if old.get(key) != header[key]:
                raise ValueError(f"{out} was made with {key}={old.get(key)!r}, not {header[key]!r}: "
                                 "give another --out to start a new set")
        if old != header:  # a larger count: the header says the latest command
            _rewrite_header(out, header)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"header": header}) + "\n", encoding="utf-8")
        positions = []
    progress = _read_progress(progress_path)
    progress["next_game"] = max([progress["next_game"]] + [p["game"] + 1 for p in positions])
    kept = len(positions)
    labeller = Labeller(game, recipe)
    agents: dict = {}
    measure = DEPTHS[recipe.depth]
    torch_threads(1)
    while kept < count:
        number = progress["next_game"]
        game_seed = seed * 1_000_003 + number
        pairings = recipe.pairings
        specs = pairings[number % len(pairings)]
        if (number // len(pairings)) % 2:
            specs = specs[::-1]
        started = time.perf_counter()
        history = play(game, specs, env_id, options, game_seed, agents)
        progress["play_seconds"] += time.perf_counter() - started
        end = len(history) - 1
        candidates: dict[int, int] = {}
        for ply, state in enumerate(history[:-1]):
            depth = measure(state, end - ply)
            if recipe.low <= depth <= recipe.high and depth not in candidates:
                candidates[depth] = ply
        rng = np.random.default_rng(game_seed)
        chosen = sorted(rng.choice(sorted(candidates), size=min(recipe.per_game, len(candidates)), replace=False).tolist())
        lines = []
        for depth in chosen:
            if kept + len(lines) >= count:
                break
            ply = candidates[depth]
            state = game.state_from_text(history[ply].to_text(), rng=np.random.default_rng(0))
            entry, seconds = labeller.label(state)
            progress["solve_seconds"] += seconds
            progress["attempted"][str(depth)] = progress["attempted"].get(str(depth), 0) + 1
            if entry is None:
                progress["unsolved"][str(depth)] = progress["unsolved"].get(str(depth), 0) + 1
                log(f"game {number} ply {ply} ({depth}): unsolved within {recipe.max_nodes:,} nodes")
                continue
            if len(set(entry["moves"].values())) == 1:
                progress["no_choice"][str(depth)] = progress["no_choice"].get(str(depth), 0) + 1
                continue
            lines.append({"game": number, "ply": ply, "left": depth, "players": " vs ".join(specs), **entry})
            log(f"game {number} ply {ply} ({depth}): value {entry['value']:+.0f}, {len(entry['moves'])} moves, "
                f"{entry['nodes']:,} nodes, {entry['seconds']:.1f} s")
        with out.open("a", encoding="utf-8") as handle:
            for line in lines:
                handle.write(json.dumps(line) + "\n")
        kept += len(lines)
        progress["next_game"] = number + 1
        progress["kept"] = kept
        _write_progress(progress_path, progress)
    log(f"{out}: {kept} positions")
    return out


def torch_threads(count: int) -> None:
    """Networks play on ``count`` threads (a background job on a shared machine)."""
    import torch

    torch.set_num_threads(count)


def _read_progress(path: Path) -> dict:
    progress = {"next_game": 0, "kept": 0, "attempted": {}, "unsolved": {}, "no_choice": {},
                "play_seconds": 0.0, "solve_seconds": 0.0}
    if path.exists():
        progress.update(json.loads(path.read_text(encoding="utf-8")))
    return progress


def _write_progress(path: Path, progress: dict) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(progress, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(path)


def _rewrite_header(path: Path, header: dict) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = json.dumps({"header": header}) + "\n"
    partial = path.with_suffix(".partial")
    partial.write_text("".join(lines), encoding="utf-8")
    partial.replace(path)


# ---------------------------------------------------------------------- mistakes
def mistake_rates(path: str | os.PathLike, specs: list[str], seed: int = 0, limit: int | None = None,
                  log=print, progress_every: int = 10) -> dict:
    """Per agent spec: on how many of the set's positions its move lowers the exact value.
    Every ``progress_every`` positions (0: never) it logs the count so far: what a run cut
    short measured, the same as ``limit`` set to that many positions would."""
    from training.ratings import wilson_interval

    header, positions = read_set(path)
    positions = positions[:limit] if limit else positions
    env_id, options = header["env_id"], header["env_options"]
    game = make_game(env_id, **options)
    states = [load_position(game, entry) for entry in positions]
    report = {"set": str(path), "env_id": env_id, "env_options": options, "positions": len(positions),
              "seed": seed, "agents": {}, "random_mover": random_mover_rates(positions)}
    for spec in specs:
        agent = make_agent(spec, seed=seed, env_id=env_id, env_options=options)
        started = time.perf_counter()
        mistakes = 0
        by = {key: {} for key in BREAKDOWNS}
        for k, (entry, state) in enumerate(zip(positions, states)):
            agent.reset(seed=seed * 1_000_003 + k)
            seat = state.current_player
            observation = {"observation": state.observation(seat), "action_mask": state.legal_mask().astype(np.int8)}
            action = agent.act(observation, state.clone())
            mistake = bool(entry["moves"][state.action_to_string(int(action))] < entry["value"])
            mistakes += mistake
            for key in BREAKDOWNS:
                if key in entry:
                    counts = by[key].setdefault(_group(entry[key]), {"mistakes": 0, "positions": 0})
                    counts["mistakes"] += mistake
                    counts["positions"] += 1
            if progress_every and (k + 1) % progress_every == 0 and k + 1 < len(positions):
                log(f"{spec}: {mistakes} mistakes in the first {k + 1} positions ({time.perf_counter() - started:.0f} s)")
        low, high = wilson_interval(mistakes, len(positions))
        rate = mistakes / len(positions) if positions else math.nan
        report["agents"][spec] = {"mistakes": int(mistakes), "positions": len(positions), "rate": rate,
                                  "low": low, "high": high, "seconds": round(time.perf_counter() - started, 1),
                                  "by": {key: dict(sorted(groups.items(), key=lambda item: _order(item[0])))
                                         for key, groups in by.items()}}
        log(f"{spec}: {mistakes}/{len(positions)} mistakes ({rate:.1%}, 95% {low:.1%}-{high:.1%})")
    return report


#: what ``mistakes --by`` can break the rates down by: a position's ``left`` (how far from the
#: end it was sampled: Sky Scrapers' stacks left) and its exact ``value`` for the seat to move
BREAKDOWNS = ("left", "value")


def _group(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _order(group: str):
    """Groups in numeric order (any that is no number after them)."""
    try:
        return (0, float(group), "")
    except ValueError:
        return (1, 0.0, group)


def random_mover_rates(positions: list[dict]) -> dict:
    """What a mover picking uniformly among the legal moves would err, over the set and per
    group of each breakdown: the mean share of each position's moves that lower its value."""
    def share(entry):
        return sum(value < entry["value"] for value in entry["moves"].values()) / len(entry["moves"])

    shares = [share(entry) for entry in positions]
    rates = {"rate": float(np.mean(shares)) if positions else math.nan}
    for key in BREAKDOWNS:
        groups = {}
        for entry, entry_share in zip(positions, shares):
            if key in entry:
                groups.setdefault(_group(entry[key]), []).append(entry_share)
        rates[key] = {group: float(np.mean(groups[group])) for group in sorted(groups, key=_order)}
    return rates


def format_breakdown(report: dict, key: str) -> str:
    """Each agent's mistake rate per group of positions (``key``: one of :data:`BREAKDOWNS`),
    beside the positions in the group and what a uniformly random mover would err there."""
    specs = list(report["agents"])
    groups = report["random_mover"][key]
    lines = [f"by {key}:", "", "| " + " | ".join([key, "positions", "random mover", *specs]) + " |",
             "|---|" + "---:|" * (2 + len(specs))]
    for group, random_rate in groups.items():
        counts = [report["agents"][spec]["by"][key][group] for spec in specs]
        cells = [group, str(counts[0]["positions"]), f"{random_rate:.1%}"]
        cells += [f"{c['mistakes'] / c['positions']:.1%}" for c in counts]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_table(report: dict) -> str:
    """The report as a markdown table."""
    lines = [f"{report['env_id']}: {report['positions']} positions ({report['set']})", "",
             "| agent | mistakes | rate | 95% interval | seconds |", "|---|---:|---:|---:|---:|"]
    for spec, row in report["agents"].items():
        lines.append(f"| {spec} | {row['mistakes']} / {row['positions']} | {row['rate']:.1%} | "
                     f"{row['low']:.1%}–{row['high']:.1%} | {row['seconds']:.0f} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.solved_positions", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("make", help="play, sample and solve positions into a set (resumes)")
    make.add_argument("--env", required=True, help=f"env id: one of {', '.join(sorted(RECIPES))}")
    make.add_argument("--count", type=int, required=True, help="positions the set should hold")
    make.add_argument("--out", type=Path, help="the set file (default benchmarks/solved/<env_id>.jsonl)")
    make.add_argument("--seed", type=int, default=0, help="games are seeded from it (default 0)")
    mistakes = commands.add_parser("mistakes", help="each agent's share of moves that lower the exact value")
    mistakes.add_argument("--env", help="env id: reads benchmarks/solved/<env_id>.jsonl")
    mistakes.add_argument("--set", type=Path, help="a set file (instead of --env)")
    mistakes.add_argument("--agents", nargs="+", required=True, help="agent specs, as make_agent takes them")
    mistakes.add_argument("--limit", type=int, help="the set's first N positions only")
    mistakes.add_argument("--seed", type=int, default=0, help="the agents' seeds derive from it (default 0)")
    mistakes.add_argument("--json", type=Path, help="also write the figures there")
    mistakes.add_argument("--by", nargs="+", choices=BREAKDOWNS, default=[],
                          help="also break the rates down by the positions' stacks (or plies) left, or their exact value")
    args = parser.parse_args(argv)
    if args.command == "make":
        if args.count < 1:
            parser.error("--count must be at least 1")
        make_set(args.env, args.count, args.out, args.seed)
        return 0
    if (args.env is None) == (args.set is None):
        parser.error("give --env or --set")
    path = args.set or set_path(canonical_id(args.env))
    report = mistake_rates(path, args.agents, args.seed, args.limit, log=lambda text: print(text, file=sys.stderr))
    report["command"] = "python -m benchmarks.solved_positions " + shlex.join(argv if argv is not None else sys.argv[1:])
    print(format_table(report))
    for key in args.by:
        print("\n" + format_breakdown(report, key))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
