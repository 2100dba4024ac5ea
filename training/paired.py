"""Two agents on the same games: two evaluation journals compared game for game.

    python -m training.paired runs/a/evaluation.games.jsonl runs/b/evaluation.games.jsonl
    python -m training.paired a.games.jsonl b.games.jsonl --opponent mcts@1000

Game g of a ``training.evaluate`` pairing is played with seed ``--seed`` + g: its start
position, its seats and the agents' seeds. Two evaluations of two agents against one
opponent with the same env, options and seed therefore start the same games with the same
opponent, and only the agent tested differs; comparing them game for game takes out what
the start positions add to each score. Each journal
(``STEM.games.jsonl``, written as the games end) gives the pairing against ``--opponent``
(default: its only pairing); the agent tested sits first in both (``A vs OPPONENT``).

Printed: each agent's record on the games both journals hold, how many of those games each
scored more in, an exact two-sided sign test over the games where they differ (the chance of
a split at least that uneven if neither agent were the stronger), and the mean score
difference per game with a 95% interval (normal, over the paired differences). Journals of
different evaluations (env, options, seed, MCTS budget or opponent) are refused: their game
g is another game.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from sky_envs.agents import split_spec
from sky_envs.core.arguments import HelpFormatter, module_prog
from .ratings import wilson_interval
from .tournament import PairResult, journal_header, read_journal

#: what two journals' headers must share for their game g to be the same game
SAME_GAMES = ("env_id", "options", "seed", "mcts_simulations")


def journal_pairing(journal: str | Path, opponent: str | None) -> tuple[dict, str, str, dict[int, float]]:
    """``(header, agent, opponent, {game: agent's reward})`` of the pairing against
    ``opponent`` (None: the journal's only pairing); ``ValueError`` if there is none, or
    several and no opponent named."""
    header = journal_header(journal)
    pairings = read_journal(journal, header)
    chosen = [(a, b) for a, b in pairings if opponent is None or b == opponent]
    if len(chosen) != 1:
        found = ", ".join(f"{a} vs {b}" for a, b in pairings) or "none"
        wanted = f"one pairing against {opponent!r}" if opponent else "exactly one pairing (or give --opponent)"
        raise ValueError(f"{str(journal)!r} holds pairings {found}: expected {wanted}, with the agent tested first")
    agent, against = chosen[0]
    return header, agent, against, pairings[chosen[0]]


def opponent_identity(header: dict, name: str) -> dict | None:
    """The header's record of the agent the table names ``name`` (a baseline's spec, or a
    checkpoint's file stem with its ``@N``), or None."""
    for entry in header["agents"]:
        spec = entry["spec"]
        base, budget = split_spec(spec)
        if name in (spec, Path(base).stem + (f"@{budget}" if budget else "")):
            return entry
    return None


def sign_test(more: int, less: int) -> float:
    """Exact two-sided sign test: the chance of a split of ``more + less`` games at least as
    uneven as this one when each goes either way with even odds."""
    n = more + less
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(more, less) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def compare(a: dict[int, float], b: dict[int, float]) -> dict:
    """The paired figures of two ``{game: reward}`` maps over the games both hold."""
    games = sorted(set(a) & set(b))
    if not games:
        raise ValueError("the two journals hold no game in common")
    n = len(games)

    def record(rewards: dict[int, float]) -> dict:
        result = PairResult("a", "b")   # counted as the evaluation's table counts them
        for g in games:
            result.record(rewards[g])
        return {"wins": result.wins, "draws": result.draws, "losses": result.losses, "score": result.score / n,
                "interval": wilson_interval(result.score, n)}

    differences = [(a[g] - b[g]) / 2 for g in games]   # score difference per game, from -1 to 1
    mean = sum(differences) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * spread / math.sqrt(n)
    more, less = sum(d > 0 for d in differences), sum(d < 0 for d in differences)
    return {"games": n, "a": record(a), "b": record(b), "a_more": more, "b_more": less,
            "sign_test_p": sign_test(more, less), "mean_difference": mean, "difference_interval": (mean - half, mean + half)}


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or module_prog(__spec__), description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument("journals", nargs=2, metavar="JOURNAL", help="two STEM.games.jsonl files of training.evaluate")
    parser.add_argument("--opponent", help="the opponent's name in both tables (default: each journal's only pairing)")
    args = parser.parse_args(argv)
    try:
        (head_a, agent_a, against, games_a), (head_b, agent_b, against_b, games_b) = (
            journal_pairing(path, args.opponent) for path in args.journals)
        differ = [key for key in SAME_GAMES if head_a.get(key) != head_b.get(key)]
        if against != against_b:
            differ.append(f"the opponent ({against} against {against_b})")
        elif opponent_identity(head_a, against) != opponent_identity(head_b, against):
            differ.append(f"the opponent's file ({against})")
        if differ:
            raise ValueError(f"the journals are of different games: they differ in {', '.join(differ)}")
        result = compare(games_a, games_b)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    names = (agent_a, agent_b if agent_b != agent_a else f"{agent_b} (second)")
    width = max(len(name) for name in names) + 2
    print(f"{result['games']} games in common against {against} ({head_a['env_id']}, seed {head_a['seed']})\n")
    print(f"{'agent':<{width}} {'W':>4} {'D':>4} {'L':>4}  score  95% CI")
    for name, side in zip(names, ("a", "b")):
        r = result[side]
        print(f"{name:<{width}} {r['wins']:>4} {r['draws']:>4} {r['losses']:>4}  {r['score']:.3f}  "
              f"[{r['interval'][0]:.2f}, {r['interval'][1]:.2f}]")
    low, high = result["difference_interval"]
    print(f"\ngame for game: {names[0]} scored more in {result['a_more']}, {names[1]} in {result['b_more']}, "
          f"the same in {result['games'] - result['a_more'] - result['b_more']}")
    print(f"sign test (exact, two-sided) over the {result['a_more'] + result['b_more']} games that differ: "
          f"p = {result['sign_test_p']:.3g}")
    print(f"mean score difference per game ({names[0]} - {names[1]}): {result['mean_difference']:+.3f} "
          f"[{low:+.3f}, {high:+.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
