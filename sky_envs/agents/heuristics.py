"""Cheap per-game evaluations of a position for one seat, used by the greedy agent.

Higher is better for ``seat``. A game without an entry here is judged by the ``scores``
its state reports in ``info()`` (own score minus the best other), or not at all.
"""

from __future__ import annotations

from collections.abc import Callable

from sky_envs.core.state import GameState


def score_lead(state: GameState, seat: int) -> float:
    scores = state.info().get("scores")
    if scores is None:
        return 0.0
    others = [s for i, s in enumerate(scores) if i != seat]
    return float(scores[seat] - max(others))


def sky_scrapers(state, seat: int) -> float:
    """Sky scraper lead first, then tiles under own control (capturing a stack takes all of it)."""
    counts, tallest = state.skyscrapers()
    tiles = [int(state.heights[:-1][state.tops == state.seat_colours[i]].sum()) for i in range(state.num_players)]
    others = [i for i in range(state.num_players) if i != seat]
    lead = counts[seat] - max(counts[i] for i in others)
    material = tiles[seat] - max(tiles[i] for i in others)
    return lead + 0.05 * material + 0.01 * (tallest[seat] - max(tallest[i] for i in others))


def scala(state, seat: int) -> float:
    """How far each side's leading stone has come towards the goal it attacks."""
    from sky_envs.games.scala.board import CELL_RC

    def progress(colour: int) -> list[int]:
        stones = state.stones[colour]
        rows = [CELL_RC[i][0] for i in range(88) if stones >> i & 1]
        return [r if colour == 0 else 15 - r for r in rows] or [0]

    own, other = progress(seat), progress(1 - seat)
    return max(own) - max(other) + 0.05 * (sum(own) - sum(other)) / 14


HEURISTICS: dict[str, Callable[[GameState, int], float]] = {
    "sky_scrapers": sky_scrapers,
    "scala": scala,
}


def evaluate(state: GameState, seat: int) -> float:
    return HEURISTICS.get(state.game.name, score_lead)(state, seat)
