"""Score confidence intervals and Bradley-Terry (Elo-scale) ratings from pairwise results."""

from __future__ import annotations

import math


def wilson_interval(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a score rate (wins + draws / 2 over games)."""
    if games == 0:
        return 0.0, 1.0
    p = score / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bradley_terry(names: list[str], results: list[dict], anchor: str, prior: float = 1.0,
                  iterations: int = 2000) -> dict[str, float]:
    """Elo-scale ratings (400 log10 odds) fitted to ``results`` by the MM algorithm.

    ``results`` holds ``{"a", "b", "wins", "draws", "losses"}`` from a's side; a draw counts
    half a win each way. ``prior`` virtual draws per pairing keep perfect records finite.
    ``anchor`` is fixed at rating 0.
    """
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not one of the rated agents {names}")
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    won = [0.0] * n
    games = [[0.0] * n for _ in range(n)]
    for r in results:
        i, j = index[r["a"]], index[r["b"]]
        total = r["wins"] + r["draws"] + r["losses"] + prior
        won[i] += r["wins"] + (r["draws"] + prior) / 2
        won[j] += r["losses"] + (r["draws"] + prior) / 2
        games[i][j] += total
        games[j][i] += total
    strength = [1.0] * n
    for _ in range(iterations):
        new = []
        for i in range(n):
            denom = sum(games[i][j] / (strength[i] + strength[j]) for j in range(n) if games[i][j])
            new.append(won[i] / denom if denom else strength[i])
        scale = new[index[anchor]]
        new = [s / scale for s in new]
        if max(abs(a - b) for a, b in zip(new, strength)) < 1e-12:
            strength = new
            break
        strength = new
    return {name: 400 * math.log10(strength[index[name]]) for name in names}
