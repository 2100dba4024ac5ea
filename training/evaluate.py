"""Evaluate agents against each other: a round robin with seats rotating, then ratings.

    python -m training.evaluate --env sky_scrapers_v0 --agents random greedy mcts runs/x/final.pt
    python -m training.evaluate --config configs/sky_scrapers.yaml --agents random final.pt --games 100

Agents are baseline names (``random``, ``greedy``, ``mcts``, ``mcts@400`` for a budget,
``alphabeta@2`` for a depth, two-seat games) or
``pretrained`` (the network shipped for the env; ``pretrained@200`` with search), or
checkpoint files (``policy.pt``; ``policy.pt@200`` plays PUCT search with 200 simulations),
checked against the env before any game is played. ``--pairings A:B[:GAMES] ...``
plays only those pairings (names as in the table), each ``--games`` or GAMES games; ``--workers N`` shares each
pairing's games among N processes (the same results as one), and ``--ray-address ADDRESS``
plays them as Ray tasks on a cluster (``auto``, or the head's HOST:PORT; the same results
again; see :mod:`training.cluster`). Prints the table and writes
``evaluation.{json,csv,png}`` into ``--out``. Ctrl-C or SIGTERM stops every game, worker
processes included, and exits with 128 + the signal's number without a report; the games
finished by then are kept: every game's result goes to ``STEM.games.jsonl`` in ``--out``
as soon as it ends, and ``--resume`` counts the games recorded there instead of playing
them again (the same env, agents, checkpoint files and ``--seed`` only; more ``--games`` or
other ``--pairings`` than before are fine: a recorded game is the same game whatever the
total). ``--save-games DIR`` writes every game as a replay
file into DIR (watch one with ``python -m sky_envs.replay FILE`` or ``sky-envs replay FILE``).

Game g of a pairing is played with seed ``--seed`` + g (its start position and the agents'
seeds), so a run reproduces game by game, and runs whose seeds are fewer than ``--games``
apart share start positions (``--seed 1`` plays those of ``--seed 0``'s games 1.., with the
seats shifted by one): to confirm a choice made on one sample, play the other with a seed
far away (``--seed 100000``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from sky_envs.agents import BASELINES, make_agent, split_spec
from sky_envs.agents.checkpoint import open_checkpoint
from sky_envs.core.arguments import HelpFormatter, module_prog
from sky_envs.core.registry import canonical_id, make_game
from .config import load_config
from .report import build_report, format_table, write_report
from .signals import TrainingInterrupted, interrupts_as_keyboard
from .tournament import journal_identity, read_journal, round_robin, write_journal_header


def evaluate_policy(env_id: str, options: dict, policy_path: str | Path, evaluation: dict, seed: int,
                    out_dir: str | Path, log=print, save_games: str | Path | None = None, cluster: bool = False,
                    stem: str = "evaluation", **report_fields) -> dict:
    """The end-of-training evaluation: ``policy_path`` (raw, and with PUCT search when
    ``evaluation["search_simulations"]`` > 0) in a round robin with ``evaluation["opponents"]``;
    prints the table and writes ``STEM.{json,csv,png}`` into ``out_dir`` (and with
    ``save_games`` a replay file per game into that folder). ``cluster``: the games are Ray
    tasks on the connected cluster rather than ``evaluation["workers"]`` processes."""
    checkpoint = open_checkpoint(policy_path, env_id, options)  # one load for the raw and the searched agent
    entries = {"policy": make_agent(checkpoint, seed=seed)}
    if evaluation.get("search_simulations", 0) > 0:
        budget = evaluation["search_simulations"]
        entries[f"policy@{budget}"] = make_agent(checkpoint, seed=seed, search=budget)
    for name in evaluation["opponents"]:
        kwargs = {"simulations": evaluation["mcts_simulations"]} if name == "mcts" else {}
        entries[name] = make_agent(name, seed=seed, **kwargs)
    anchor = "random" if "random" in entries else next(iter(entries))
    results = round_robin(env_id, options, entries, evaluation["games"], seed=seed, save_games=save_games,
                          workers=evaluation["workers"], cluster=cluster)
    report = build_report(env_id, options, list(entries), results, anchor=anchor)
    report["policy"] = str(policy_path)
    report.update(report_fields)
    files = write_report(report, out_dir, stem=stem)
    log(format_table(report))
    log("report: " + ", ".join(str(f) for f in files))
    return report


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or module_prog(__spec__), description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument("--env", help="env id (or give --config)")
    parser.add_argument("--config", help="a YAML config: its env id and options are used")
    parser.add_argument("--agents", nargs="+", required=True, help="agent specs: baseline names (random, greedy, mcts@N, alphabeta@N), pretrained (pretrained@N: the network shipped for the env), checkpoint .pt files (PATH.pt@N)")
    parser.add_argument("--games", type=int, default=40, help="games per pairing")
    parser.add_argument("--mcts-simulations", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0,
                        help="game g of every pairing is played with seed SEED + g (its start position and the "
                             "agents' seeds), so runs with nearby seeds share start positions: samples meant to be "
                             "independent need seeds at least --games apart (e.g. --seed 100000)")
    parser.add_argument("--out", default="evaluation", help="folder for the report files")
    parser.add_argument("--stem", default="evaluation", help="report file names: STEM.json, STEM.csv, STEM.png")
    parser.add_argument("--pairings", nargs="+", metavar="A:B[:GAMES]",
                        help="play only these pairings, agents named as in the table (default: every pair); "
                             "GAMES overrides --games for one pairing")
    parser.add_argument("--workers", type=int, default=1, help="processes that share each pairing's games")
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="play the games as Ray tasks on this cluster ('auto', or HOST:PORT of its head) "
                             "instead of --workers processes: the same results, journaled the same way")
    parser.add_argument("--save-games", metavar="DIR", help="write each game as a replay file into DIR")
    parser.add_argument("--resume", action="store_true",
                        help="count the games recorded in OUT/STEM.games.jsonl by an earlier run of this evaluation "
                             "(e.g. one that was stopped) instead of playing them again")
    args = parser.parse_args(argv)
    try:
        if args.config:
            config = load_config(args.config)
            env_id, options = config["env"]["id"], config["env"]["options"]
        elif args.env:
            env_id, options = args.env, {}
        else:
            raise ValueError("give --env or --config")
        env_id = canonical_id(env_id)
        make_game(env_id, **options)
        if len(args.agents) < 2 or args.games < 1:
            raise ValueError("give at least two --agents and --games >= 1")
        entries = {}
        for spec in args.agents:
            kwargs = {"simulations": args.mcts_simulations} if spec == "mcts" else {}
            agent = make_agent(spec, seed=args.seed, env_id=env_id, env_options=options, **kwargs)
            name = spec if split_spec(spec)[0] in (*BASELINES, "pretrained") else agent.name  # a checkpoint: its stem
            if name in entries:
                name = f"{name}#{len(entries)}"
            entries[name] = agent
        pairings = None
        if args.pairings is not None:
            pairings = []
            for pair in args.pairings:
                a, _, rest = pair.partition(":")
                b, _, count = rest.partition(":")
                if a == b or not {a, b} <= set(entries) or (count and not (count.isdigit() and int(count) > 0)):
                    raise ValueError(f"--pairings {pair!r}: expected A:B or A:B:GAMES, two different agents of "
                                     f"{list(entries)} and a positive game count")
                pairings.append((a, b, int(count)) if count else (a, b))
        if args.workers < 1:
            raise ValueError("--workers must be >= 1")
        if args.ray_address and args.workers != 1:
            raise ValueError("give --workers or --ray-address, not both: on a cluster its CPUs share the games")
        journal = Path(args.out) / f"{args.stem}.games.jsonl"
        header = {"env_id": env_id, "options": options, "agents": [journal_identity(spec, entries[name])
                                                                   for spec, name in zip(args.agents, entries)],
                  "seed": args.seed, "mcts_simulations": args.mcts_simulations}
        known = read_journal(journal, header) if args.resume and journal.is_file() else {}
        if args.resume and not journal.is_file():
            print(f"--resume: no game journal at {journal}, so every game is played", file=sys.stderr)
    except ValueError as error:
        parser.error(str(error))
    journal.parent.mkdir(parents=True, exist_ok=True)
    if not known:
        write_journal_header(journal, header)
    if args.ray_address:
        from .cluster import connect

        try:
            resources = connect(args.ray_address)
        except ConnectionError as error:
            parser.error(str(error))
        print(f"playing on the Ray cluster at {args.ray_address}: {resources.get('CPU', 0):g} CPUs")
    try:
        with interrupts_as_keyboard():  # SIGTERM too stops the games and their worker processes
            results = round_robin(env_id, options, entries, args.games, seed=args.seed, pairings=pairings,
                                  workers=args.workers, save_games=args.save_games, journal=journal, known=known,
                                  cluster=bool(args.ray_address))
    except TrainingInterrupted as stop:
        print(f"evaluation stopped by {stop}: no report written; the games played are kept in {journal}, "
              "and the same command with --resume goes on from them", file=sys.stderr)
        return 128 + stop.signum
    played = [name for name in entries if any(name in (r.a, r.b) for r in results)]  # rated: who played
    anchor = "random" if "random" in played else played[0]
    report = build_report(env_id, options, played, results, anchor)
    print(format_table(report))
    report["command"] = f"{parser.prog} " + shlex.join(argv if argv is not None else sys.argv[1:])
    files = write_report(report, args.out, stem=args.stem)
    print("report:", ", ".join(str(f) for f in files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
