"""Cheap per-game evaluations of a position for one seat, used by the greedy agent.

Higher is better for ``seat``. A game without an entry here is judged by the ``scores``
its state reports in ``info()`` (own score minus the best other), or not at all.

A game may also score every legal action at once without playing each one
(:data:`ACTION_VALUES`): the greedy agent's one-ply values, computed on arrays. It must
give exactly the values that playing each action on a clone and evaluating the result
would (``tests/test_agents.py`` checks this on random positions); it returns ``None``
where it does not apply, and the agent falls back to clone-and-play.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sky_envs.core.state import GameState

WIN = 1000.0  # the value of a finished game, times the seat's return


def score_lead(state: GameState, seat: int) -> float:
    scores = state.info().get("scores")
    if scores is None:
        return 0.0
    others = [s for i, s in enumerate(scores) if i != seat]
    return float(scores[seat] - max(others))


def _lead(values: np.ndarray, seat: int) -> np.ndarray:
    """``values[:, seat]`` minus the best other seat's, per row of a ``(K, players)`` array."""
    others = [i for i in range(values.shape[1]) if i != seat]
    return values[:, seat] - values[:, others].max(axis=1)


def sky_scrapers_tallies(heights: np.ndarray, tops: np.ndarray, colours: np.ndarray, skyscraper_height: int):
    """Per position (rows of ``heights``/``tops``, ``(K, B)``) and seat: sky scrapers, the
    tallest one (0 if none) and the tiles under the seat's control, each ``(K, players)``."""
    own = tops[:, None, :] == colours[None, :, None]
    stacks = np.where(own, heights[:, None, :], 0)
    tall = np.where(stacks >= skyscraper_height, stacks, 0)
    return (tall > 0).sum(axis=2), tall.max(axis=2), stacks.sum(axis=2)


def _sky_scrapers_values(counts, tallest, tiles, seat: int) -> np.ndarray:
    """Sky scraper lead first, then tiles under own control (capturing a stack takes all of it)."""
    return _lead(counts, seat) + 0.05 * _lead(tiles, seat) + 0.01 * _lead(tallest, seat)


def sky_scrapers(state, seat: int) -> float:
    B = state.board.size
    tallies = sky_scrapers_tallies(state.heights[None, :B], state.tops[None], state.seat_colours,
                                   state.game.skyscraper_height)
    return float(_sky_scrapers_values(*tallies, seat)[0])


def sky_scrapers_moves(state, seat: int, legal: np.ndarray) -> np.ndarray | None:
    """One-ply values of every legal stack move (the move phase), from arrays.

    A move empties its origin and puts the whole stack on the landing cell; the game then
    ends when no stack anywhere can move (as ``SkyScrapersState._start_turn`` decides), and
    a finished game is worth ``WIN`` times the seat's return.
    """
    from sky_envs.games.sky_scrapers.state import MOVE

    if state.phase != MOVE:
        return None
    board, B, K = state.board, state.board.size, legal.size
    rows = np.arange(K)
    origin, direction = np.divmod(legal, 8)
    landing = state._landing
    target = landing[origin, direction]
    heights = np.repeat(state.heights[None], K, axis=0)
    tops = np.repeat(state.tops[None], K, axis=0)
    moved = heights[rows, origin] + heights[rows, target]
    heights[rows, target], heights[rows, origin] = moved, 0
    tops[rows, target], tops[rows, origin] = tops[rows, origin], -1
    # Does any stack still move? The moved stack from its new landing row; any other stack
    # (not on origin or target) as before, unless it was landing on the now empty origin.
    new_row = board.reach[np.minimum(moved, board.max_reach + 1), target]
    moves_on = ((new_row != origin[:, None]) & (state.heights[new_row] > 0)).any(axis=1)
    movable = state.heights[landing] > 0
    per_cell = movable.sum(axis=1)
    onto = np.bincount(landing[movable], minlength=B + 1)
    target_onto_origin = (movable[target] & (landing[target] == origin[:, None])).sum(axis=1)
    others = per_cell.sum() - per_cell[origin] - per_cell[target] - onto[origin] + target_onto_origin
    finished = ~moves_on & (others == 0)
    counts, tallest, tiles = sky_scrapers_tallies(heights[:, :B], tops, state.seat_colours,
                                                  state.game.skyscraper_height)
    values = _sky_scrapers_values(counts, tallest, tiles, seat)
    if finished.any():
        values[finished] = WIN * _win_loss(counts[finished], tallest[finished], seat)
    return values


def _win_loss(counts: np.ndarray, tallest: np.ndarray, seat: int) -> np.ndarray:
    """``seat``'s return in finished Sky Scrapers games (``SkyScrapersState.winners`` and the
    shared win/loss convention): most sky scrapers, then the tallest; all tied or none built
    is a draw."""
    key = counts * (tallest.max() + 1) + tallest  # orders (count, tallest) pairs
    winners = key == key.max(axis=1, keepdims=True)
    draw = (counts.max(axis=1) == 0) | winners.all(axis=1)
    return np.where(draw, 0.0, np.where(winners[:, seat], 1.0, -1.0))


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

ACTION_VALUES: dict[str, Callable[[GameState, int, np.ndarray], np.ndarray | None]] = {
    "sky_scrapers": sky_scrapers_moves,
}


def evaluate(state: GameState, seat: int) -> float:
    return HEURISTICS.get(state.game.name, score_lead)(state, seat)
