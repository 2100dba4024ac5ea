"""One rating scale per game: a ladder of agents, each playing its neighbours, rated together.

    python -m training.ladder skybridge_v0            # writes checkpoints/skybridge_v0/ladder.{json,png}
    python -m training.ladder skybridge_v0 --resume   # after Ctrl-C or SIGTERM: the recorded games count
    python -m training.ladder skybridge_v0 --resume --replay-changed   # a network shipped since: replay its rows
    python -m training.ladder scala_v0 --games 20 --out /tmp/ladder   # a quicker ladder with wider intervals

The agents of a game (:data:`LADDERS`: random, greedy, alpha-beta at depth 2 in two-seat
games, MCTS with 100, 400, 1,000 and 4,000 simulations, and the shipped network raw and
steering PUCT search with 32 and 200 simulations) stand in a row from the weakest expected to
the strongest, and each plays the next two in the row (``--games`` games each, seats rotating,
game g of a pairing seeded ``--seed`` + g, as in :mod:`training.evaluate`). The games are
played in rounds (``--games 20,50,100``, the default: every pairing to 20 games, then every
pairing to 50, then to 100), so the whole row has ratings early, and the intervals narrow as
the rounds go on. A full round robin
is out of reach (a move of MCTS-4000 takes seconds); pairings of neighbours are the
informative ones (a 100-0 result says little about the gap), and the second neighbour ties
the row together where one result is lopsided. The ratings are one maximum-likelihood fit
over every game (:func:`fit_ratings`: Bradley-Terry on the Elo scale, random = 0), with 95%
intervals from the likelihood's curvature: the uncertainty of an agent's distance from random.

Every game is journaled (``ladder.games.jsonl`` beside the outputs, the format of
:mod:`training.tournament`) as soon as it ends, and ``ladder.json`` (ratings so far, the
pairings, seconds per game here) is rewritten after every pairing; ``--resume`` counts the
recorded games instead of playing them again. Ctrl-C or SIGTERM stops the games (worker
processes included) and exits with 128 + the signal's number. Where a checkpoint of the row
has changed since (a network shipped again, with new weights or search settings),
``--resume --replay-changed`` keeps the games of the pairings between unchanged agents and
plays the others again (:func:`keep_unchanged_games`).
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from sky_envs.agents import make_agent
from sky_envs.agents.checkpoint import read_checkpoint
from sky_envs.agents.pretrained import data_folder, pretrained_path
from sky_envs.core.arguments import HelpFormatter, module_prog
from sky_envs.core.registry import canonical_id, make_game
from .ratings import wilson_interval
from .run_folder import atomic_write
from .signals import TrainingInterrupted, interrupts_as_keyboard
from .tournament import PairResult, journal_header, journal_identity, match, read_journal, write_journal_header

STEM = "ladder"
ANCHOR = "random"
#: each game's agents, weakest expected first (the order of the shipped reports' scores);
#: a pairing that turns out lopsided still rates both sides, only with a wider interval
LADDERS = {
    "sky_scrapers_v0": ["random", "greedy", "alphabeta@2", "mcts@100", "pretrained", "mcts@400", "pretrained@32",
                        "mcts@1000", "pretrained@200", "mcts@4000"],
    "skybridge_v0": ["random", "greedy", "alphabeta@2", "mcts@100", "pretrained", "mcts@400", "pretrained@32",
                     "mcts@1000", "pretrained@200", "mcts@4000"],
    # Scala's MCTS (random playouts of a race that runs to the draw at max_turns) stands below
    # greedy, so the row puts it first (docs/notes/2026-12-05-golden-rush-gumbel-root-and-ladders.md)
    "scala_v0": ["random", "mcts@100", "mcts@400", "mcts@1000", "mcts@4000", "greedy", "alphabeta@2", "pretrained",
                 "pretrained@32", "pretrained@200"],
    "highrise_heist_v0": ["random", "greedy", "alphabeta@2", "mcts@100", "mcts@400", "pretrained", "pretrained@32",
                          "mcts@1000", "pretrained@200", "mcts@4000"],
    "sky_towers_v0": ["random", "greedy", "alphabeta@2", "mcts@100", "mcts@400", "pretrained", "pretrained@32",
                      "mcts@1000", "pretrained@200", "mcts@4000"],
    "golden_rush_v0": ["random", "greedy", "mcts@100", "pretrained", "mcts@400", "pretrained@32", "mcts@1000",
                       "pretrained@200", "mcts@4000"],
}
REACH = 2   # each agent plays the next REACH agents of the row
DEFAULT_ROUNDS = "20,50,100"   # --games: every pairing to 20 games, then to 50, then to 100
ELO = 400 / math.log(10)


def ladder_pairings(agents: list[str], reach: int = REACH) -> list[tuple[str, str]]:
    """Each agent against the next ``reach`` agents of the row, the stronger expected as b."""
    return [(agents[i], agents[j]) for i in range(len(agents)) for j in range(i + 1, min(i + reach + 1, len(agents)))]


def fit_ratings(names: list[str], results: list[dict], anchor: str = ANCHOR, seats: int = 2,
                prior: float = 1.0) -> dict[str, dict]:
    """Ratings on the Elo scale (400 log10 odds; ``anchor`` = 0) and their 95% intervals.

    ``results`` hold ``{"a", "b", "wins", "draws", "losses"}`` from a's side, a playing one
    seat against ``seats - 1`` copies of b. The model (Luce's choice rule) gives a the win
    with probability ``s_a / (s_a + (seats - 1) s_b)``; with two seats that is Bradley-Terry
    (:func:`training.ratings.bradley_terry`, whose conventions this shares: a draw counts
    half a win each way, ``prior`` virtual draws per pairing keep perfect records finite).
    Fitted by Newton's method; each interval is ±1.96 standard errors from the inverse of
    the log-likelihood's curvature with the anchor held at 0. Agents not connected to the
    anchor by the results are left out."""
    connected, frontier = {anchor}, [anchor]
    while frontier:
        name = frontier.pop()
        for r in results:
            for x, y in ((r["a"], r["b"]), (r["b"], r["a"])):
                if x == name and y not in connected:
                    connected.add(y)
                    frontier.append(y)
    names = [name for name in names if name in connected]
    index = {name: i for i, name in enumerate(names)}
    pairs = [(index[r["a"]], index[r["b"]], r["wins"] + (r["draws"] + prior) / 2,
              r["losses"] + (r["draws"] + prior) / 2) for r in results if r["a"] in index]
    offset = math.log(seats - 1)
    theta = np.zeros(len(names))
    free = [i for i in range(len(names)) if names[i] != anchor]
    hessian = np.zeros((len(names), len(names)))
    for _ in range(200):
        gradient, hessian = np.zeros(len(names)), np.zeros((len(names), len(names)))
        for i, j, won, lost in pairs:
            p = 1 / (1 + math.exp(-(theta[i] - theta[j] - offset)))
            g, h = won - (won + lost) * p, (won + lost) * p * (1 - p)
            gradient[i] += g
            gradient[j] -= g
            hessian[[i, j], [i, j]] -= h
            hessian[[i, j], [j, i]] += h
        if not free:
            break
        step = np.linalg.solve(-hessian[np.ix_(free, free)], gradient[free])
        theta[free] += np.clip(step, -2.0, 2.0)
        if np.abs(step).max() < 1e-10:
            break
    errors = np.zeros(len(names))
    if free:
        errors[free] = np.sqrt(np.diag(np.linalg.inv(-hessian[np.ix_(free, free)])))
    return {name: {"rating": float(theta[i] * ELO), "se": float(errors[i] * ELO),
                   "ci95": [float((theta[i] - 1.96 * errors[i]) * ELO), float((theta[i] + 1.96 * errors[i]) * ELO)]}
            for i, name in enumerate(names)}


def expected_score(ratings: dict[str, dict], a: str, b: str, seats: int) -> float | None:
    """a's expected score against ``seats - 1`` copies of b under the fitted ratings."""
    if a not in ratings or b not in ratings:
        return None
    gap = (ratings[a]["rating"] - ratings[b]["rating"]) / ELO - math.log(seats - 1)
    return 1 / (1 + math.exp(-gap))


def build_ladder(env_id: str, options: dict, agents: list[str], results: list[PairResult], seats: int,
                 timing: dict[str, dict], **fields) -> dict:
    """``ladder.json``'s content from the pairings played so far."""
    played = [r.as_dict() for r in results if r.games]
    ratings = fit_ratings(agents, played, seats=seats) if played else {ANCHOR: {"rating": 0.0, "se": 0.0,
                                                                                "ci95": [0.0, 0.0]}}
    pairings = []
    for r in results:
        low, high = wilson_interval(r.score, r.games)
        clock = timing.get(f"{r.a}:{r.b}", {})
        pairings.append({**r.as_dict(), "games": r.games, "score": r.score / r.games if r.games else None,
                         "ci95": [low, high], "expected": expected_score(ratings, r.a, r.b, seats),
                         "seconds_per_game": clock["seconds"] / clock["games"] if clock.get("games") else None})
    order = sorted(ratings, key=lambda name: -ratings[name]["rating"])
    return {"env_id": env_id, "env_options": options, "anchor": ANCHOR, "seats": seats, "agents": agents,
            "ratings": {name: ratings[name] for name in order}, "pairings": pairings, "timing": timing, **fields}


def write_picture(ladder: dict, path: Path) -> Path:
    """The ratings as points with their 95% intervals, strongest on top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = ladder["ratings"]
    names = list(ratings)[::-1]
    values = np.array([ratings[n]["rating"] for n in names])
    low = values - np.array([ratings[n]["ci95"][0] for n in names])
    high = np.array([ratings[n]["ci95"][1] for n in names]) - values
    figure, axis = plt.subplots(figsize=(7, 0.45 * len(names) + 1.5))
    axis.errorbar(values, range(len(names)), xerr=[low, high], fmt="o", color="#3465a4", ecolor="#729fcf",
                  elinewidth=3, capsize=4)
    axis.set_yticks(range(len(names)), names)
    axis.axvline(0, color="black", linewidth=0.8)
    axis.set_xlabel(f"rating (Elo scale, {ladder['anchor']} = 0), 95% interval")
    games = sorted({p["games"] for p in ladder["pairings"] if p["games"]})
    per_pairing = f"{'/'.join(map(str, games)) or 0} games per pairing" + ("" if ladder.get("complete")
                                                                          else ", not finished")
    axis.set_title(f"{ladder['env_id']}: ladder ratings ({per_pairing})", fontsize=11)
    axis.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    atomic_write(path, lambda handle: figure.savefig(handle, format="png"))
    plt.close(figure)
    return path


def shipped_command(command: str) -> str:
    """A recorded ladder command as the docs show it: without its ``--out``, since the docs
    show the ladder shipped in ``checkpoints/<env_id>/``, the folder the command writes to by
    default (a ladder is often played in a run folder, then copied there), and without
    ``--resume`` and ``--replay-changed`` (the command that started it; the docs add
    ``--resume`` where it goes on)."""
    kept, skip = [], False
    for word in shlex.split(command):
        if skip:
            skip = False
        elif word == "--out":
            skip = True
        elif not word.startswith("--out=") and word not in ("--resume", "--replay-changed"):
            kept.append(word)
    return shlex.join(kept)


def recorded_rounds(command: str) -> list[int]:
    """The rounds (``--games``) of a recorded ladder command; the default's if it names none
    (for a ``ladder.json`` that does not record its ``rounds``)."""
    words = shlex.split(command)
    for i, word in enumerate(words):
        if word == "--games" and i + 1 < len(words):
            return game_rounds(words[i + 1])
        if word.startswith("--games="):
            return game_rounds(word.split("=", 1)[1])
    return game_rounds(DEFAULT_ROUNDS)


def unfinished_words(ladder: dict) -> str:
    """What the docs say of a ladder that stopped before its last round: the pairings that
    still wait for games (or, where every pairing has some, how far the round under way has
    gone), the agents not rated yet, and the command that plays the rest."""
    pairings = ladder["pairings"]
    waiting = [p for p in pairings if not p["games"]]
    unrated = [a for a in ladder["agents"] if a not in ladder["ratings"]]
    command = shipped_command(ladder.get("command") or f"python -m training.ladder {ladder['env_id']}")
    if waiting:
        progress = f"{len(waiting)} of {len(pairings)} pairings have no games yet"
    else:
        rounds = ladder.get("rounds") or recorded_rounds(command)   # files written before "rounds" was
        short = [r for r in rounds if any(p["games"] < r for p in pairings)]
        progress = f"every pairing has played {min(p['games'] for p in pairings)} games or more"
        if short:
            reached = sum(p["games"] >= short[0] for p in pairings)
            progress += f" ({reached} of {len(pairings)} have reached the round of {short[0]})"
    return (f" **Not finished**: {progress}"
            + (f" ({', '.join(f'`{a}`' for a in unrated)} not rated at all)" if unrated else "")
            + f". The ratings are those of the games so far; `{command} --resume` plays the rest.")


def ladder_markdown(ladder: dict, picture: str) -> str:
    """The ladder as the docs show it: its picture, the ratings table, the pairings."""
    seats = ladder["seats"]
    versus = "against one copy of b" if seats == 2 else f"in one seat against {seats - 1} copies of b"
    games = sorted({p["games"] for p in ladder["pairings"] if p["games"]})
    state = "" if ladder.get("complete") else unfinished_words(ladder)
    lines = [f"Every agent plays the next {ladder.get('reach', REACH)} in the row below "
             f"({', '.join(f'`{a}`' for a in ladder['agents'])}; weakest expected first), "
             f"{' or '.join(map(str, games))} games per pairing, seats rotating (seed {ladder.get('seed', 0)}). "
             "Ratings are one Bradley-Terry fit over every game, on the Elo scale with random = 0 "
             f"(a plays one seat {versus}), with 95% intervals.{state}", "",
             f"![{ladder['env_id']} ladder]({picture})", "",
             "| agent | rating | 95% interval |", "|---|---:|---|"]
    for name, r in ladder["ratings"].items():
        lines.append(f"| {name} | {r['rating']:.0f} | [{r['ci95'][0]:.0f}, {r['ci95'][1]:.0f}] |")
    lines += ["", "| pairing | W | D | L | score | 95% interval | fit | seconds a game |",
              "|---|---:|---:|---:|---:|---|---:|---:|"]
    for p in ladder["pairings"]:
        if not p["games"]:
            lines.append(f"| {p['a']} vs {p['b']} | | | | | | | not played yet |")
            continue
        fit = "" if p["expected"] is None else f"{p['expected']:.2f}"
        clock = "" if p["seconds_per_game"] is None else f"{p['seconds_per_game']:.1f}"
        lines.append(f"| {p['a']} vs {p['b']} | {p['wins']} | {p['draws']} | {p['losses']} | {p['score']:.2f} "
                     f"| [{p['ci95'][0]:.2f}, {p['ci95'][1]:.2f}] | {fit} | {clock} |")
    lines += ["", f"`fit` is the score the ratings predict; seconds are wall-clock on the project's 2-core machine "
              f"shared with other work. Made by `{shipped_command(ladder.get('command', ''))}`."]
    return "\n".join(lines) + "\n"


def keep_unchanged_games(journal: Path, header: dict) -> set[tuple[str, str]]:
    """``--replay-changed``: rewrite ``journal`` for the ladder ``header`` describes, keeping the
    games of the pairings whose two agents it records as the journal does (the same spec and
    checkpoint digest) and dropping the others; the pairings dropped. Refused (``ValueError``)
    where the env, options, seed or row of agents differ: then no game carries over."""
    header = json.loads(json.dumps(header))   # as written: tuples become lists
    written = journal_header(journal)

    def frame(h: dict) -> dict:
        return {**{key: value for key, value in h.items() if key != "agents"}, "row": [a["spec"] for a in h["agents"]]}

    if frame(written) != frame(header):
        changed = sorted(key for key in set(frame(written)) | set(frame(header))
                         if frame(written).get(key) != frame(header).get(key))
        raise ValueError(f"--replay-changed: {str(journal)!r} holds a ladder that differs in {', '.join(changed)}, "
                         "not only in its checkpoints: start afresh in another --out")
    unchanged = {new["spec"] for old, new in zip(written["agents"], header["agents"]) if old == new}
    games = read_journal(journal, written)
    kept = {pair: played for pair, played in games.items() if set(pair) <= unchanged}
    lines = [json.dumps({"evaluation": header})] + [
        json.dumps({"a": a, "b": b, "game": g, "reward": reward})
        for (a, b), played in kept.items() for g, reward in sorted(played.items())]
    text = ("\n".join(lines) + "\n").encode()
    atomic_write(journal, lambda handle: handle.write(text))
    return set(games) - set(kept)


def rated_networks(journal: Path) -> set[str]:
    """The digests of the checkpoints a ladder's journal rated (from its header line)."""
    return {agent["sha256"] for agent in journal_header(journal)["agents"] if "sha256" in agent}


def other_network_markdown(rated: set[str], shipped: str) -> str:
    """The line the docs add to a ladder whose network rows rated another checkpoint than the
    shipped file (one shipped since the ladder was played: other weights, or the same weights
    with other search settings): empty where they agree."""
    if not rated or rated == {shipped}:
        return ""
    names = ", ".join(f"`{digest[:12]}`" for digest in sorted(rated))
    return (f"\n**The network rows of this ladder rate the checkpoint {names}, shipped before the one shipped "
            f"now (`{shipped[:12]}`: other weights or other search settings), which has not played the ladder "
            "yet.**\n")


def no_ladder_markdown(env_id: str) -> str:
    """What the docs show for a game whose ladder has not been played."""
    return (f"No ladder has been played for `{env_id}` yet; `python -m training.ladder {env_id}` plays it "
            f"(agents {', '.join(f'`{a}`' for a in LADDERS.get(env_id, []))}).\n")


def game_rounds(text: str) -> list[int]:
    """``--games``: one total or rising totals, ``"20,50,100"`` -> ``[20, 50, 100]``."""
    try:
        rounds = [int(part) for part in str(text).split(",")]
    except ValueError:
        rounds = []
    if not rounds or rounds[0] < 1 or any(b <= a for a, b in zip(rounds, rounds[1:])):
        raise ValueError(f"--games {text!r}: expected a positive number of games per pairing, or rising numbers "
                         "separated by commas (one round each)")
    return rounds


def recorded(a: str, b: str, rewards: dict[int, float], games: int) -> PairResult:
    """A pairing's result from the games of it a journal holds (those below ``games``)."""
    result = PairResult(a, b)
    for g, reward in sorted(rewards.items()):
        if g < games:
            result.record(reward)
    return result


def default_out(env_id: str) -> Path:
    return data_folder("checkpoints") / env_id


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or module_prog(__spec__), description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument("env", help="env id (its shipped network's options are played)")
    parser.add_argument("--agents", nargs="+", help="the row of agents, weakest expected first (default: the game's "
                                                    "ladder, see LADDERS); must include random")
    parser.add_argument("--games", default=DEFAULT_ROUNDS, metavar="N[,N...]",
                        help="games per pairing: rising totals, one round each (every pairing to the first, then "
                             "to the next, ...)")
    parser.add_argument("--reach", type=int, default=REACH, help="each agent plays the next REACH agents of the row")
    parser.add_argument("--seed", type=int, default=0, help="game g of every pairing is played with seed SEED + g")
    parser.add_argument("--workers", type=int, default=1, help="processes that share each pairing's games")
    parser.add_argument("--out", help="folder of ladder.json, ladder.png and ladder.games.jsonl "
                                      "(default: the env's checkpoints folder)")
    parser.add_argument("--resume", action="store_true", help="count the games the journal holds")
    parser.add_argument("--replay-changed", action="store_true",
                        help="with --resume, where checkpoints of the row changed since (a network shipped again): "
                             "keep the games between unchanged agents, play the others again")
    args = parser.parse_args(argv)
    try:
        env_id = canonical_id(args.env)
        options = read_checkpoint(pretrained_path(env_id))[0]["env_options"]
        seats = make_game(env_id, **options).num_players
        agents = args.agents or LADDERS.get(env_id)
        if not agents or ANCHOR not in agents or len(set(agents)) != len(agents) or len(agents) < 2:
            raise ValueError(f"--agents: give at least two different agents, random among them, for {env_id}")
        rounds = game_rounds(args.games)
        if args.reach < 1 or args.workers < 1:
            raise ValueError("--reach and --workers must be >= 1")
        entries = {spec: make_agent(spec, seed=args.seed, env_id=env_id, env_options=options) for spec in agents}
        out = Path(args.out) if args.out else default_out(env_id)
        journal = out / f"{STEM}.games.jsonl"
        header = {"env_id": env_id, "options": options, "seed": args.seed,
                  "agents": [journal_identity(spec, entries[spec]) for spec in agents]}
        if journal.is_file() and not args.resume:
            raise ValueError(f"{str(journal)!r} holds games of a ladder: --resume counts them (delete it to start "
                             "afresh)")
        if args.replay_changed and not args.resume:
            raise ValueError("--replay-changed goes with --resume: it keeps part of a ladder's games")
        dropped = keep_unchanged_games(journal, header) if args.replay_changed and journal.is_file() else set()
        known = read_journal(journal, header) if journal.is_file() else {}
    except ValueError as error:
        parser.error(str(error))
    out.mkdir(parents=True, exist_ok=True)
    if not known:
        write_journal_header(journal, header)
    saved = out / f"{STEM}.json"
    previous = json.loads(saved.read_text()) if args.resume and saved.is_file() else {}
    timing = previous.get("timing", {}) if previous.get("seed") == args.seed else {}
    timing = {pair: clock for pair, clock in timing.items() if tuple(pair.split(":", 1)) not in dropped}
    command = f"{parser.prog} " + shlex.join(sys.argv[1:] if argv is None else argv)
    pairings = ladder_pairings(agents, args.reach)
    results = [recorded(a, b, known.get((a, b), {}), rounds[-1]) for a, b in pairings]
    fields = {"seed": args.seed, "reach": args.reach, "rounds": rounds, "command": command}

    def save(complete: bool) -> dict:
        ladder = build_ladder(env_id, options, agents, results, seats, timing, complete=complete, **fields)
        text = json.dumps(ladder, indent=2).encode()
        atomic_write(out / f"{STEM}.json", lambda handle: handle.write(text))
        write_picture(ladder, out / f"{STEM}.png")
        return ladder

    try:
        with interrupts_as_keyboard():   # SIGTERM too stops the games and their worker processes
            for games in rounds:
                for k, (a, b) in enumerate(pairings):
                    done = known.setdefault((a, b), {})
                    played = games - len([g for g in done if g < games])
                    if not played:
                        continue
                    began = time.perf_counter()
                    results[k] = match(env_id, options, (a, entries[a]), (b, entries[b]), games, args.seed,
                                       args.workers, journal=journal, known=done)
                    clock = timing.setdefault(f"{a}:{b}", {"seconds": 0.0, "games": 0})
                    clock["seconds"] += time.perf_counter() - began
                    clock["games"] += played
                    done.update(read_journal(journal, header).get((a, b), {}))
                    print(f"{a} vs {b}: {results[k].wins}-{results[k].draws}-{results[k].losses}", flush=True)
                    save(complete=False)
    except TrainingInterrupted as stop:
        print(f"ladder stopped by {stop}: the games played are kept in {journal}; the same command with --resume "
              "goes on from them", file=sys.stderr)
        return 128 + stop.signum
    ladder = save(complete=True)
    for name, r in ladder["ratings"].items():
        print(f"{name:>16} {r['rating']:7.0f}  [{r['ci95'][0]:.0f}, {r['ci95'][1]:.0f}]")
    print(f"ladder: {out / (STEM + '.json')}, {out / (STEM + '.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
