"""Sky Scrapers' heuristic compiled with numba: a position's value for a seat
(:meth:`~sky_envs.games.sky_scrapers.heuristic.SkyScrapersHeuristic.value`) and the one-ply
values of every legal move (its ``move_values``), both from :func:`_score`.

Greedy playouts ask for the values of every legal move at every ply, a few states at a
time; in numpy each ask was dozens of array calls (half a millisecond) whatever the work.
One compiled call per state plays each move on scratch copies and scores the result with
the float operations, in the order, of the numpy formula it replaced, so the values are
equal bit for bit and every playout, greedy game and search result stayed as it was.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: weights of the tiles and tallest-sky-scraper leads beside the sky scraper lead
TILES_WEIGHT = 0.05
TALLEST_WEIGHT = 0.01


@njit(cache=True)
def _lead(values, seat):
    best = -np.inf
    for s in range(values.shape[0]):
        if s != seat and values[s] > best:
            best = values[s]
    return values[seat] - best


@njit(cache=True)
def _score(heights, tops, seat_colours, seat, skyscraper_height, counts, tallest, tiles):
    """Fill ``counts``, ``tallest`` and ``tiles`` (per seat: sky scrapers, the tallest one or
    0, tiles under own control) and return the value for ``seat``: the sky scraper lead, then
    ``TILES_WEIGHT`` times the lead in tiles and ``TALLEST_WEIGHT`` times the lead in tallest
    sky scraper (capturing a stack takes all of it)."""
    for s in range(seat_colours.shape[0]):
        counts[s] = 0.0
        tallest[s] = 0.0
        tiles[s] = 0.0
        colour = seat_colours[s]
        for cell in range(tops.shape[0]):
            if tops[cell] == colour:
                tiles[s] += heights[cell]
                if heights[cell] >= skyscraper_height:
                    counts[s] += 1.0
                    if heights[cell] > tallest[s]:
                        tallest[s] = heights[cell]
    return _lead(counts, seat) + TILES_WEIGHT * _lead(tiles, seat) + TALLEST_WEIGHT * _lead(tallest, seat)


@njit(cache=True)
def sky_scrapers_value(heights, tops, seat_colours, seat, skyscraper_height):
    """The value of the position for ``seat`` (see :func:`_score`)."""
    players = seat_colours.shape[0]
    return _score(heights, tops, seat_colours, seat, skyscraper_height, np.zeros(players), np.zeros(players),
                  np.zeros(players))


@njit(cache=True)
def sky_scrapers_move_values(heights, tops, landing, reach, seat_colours, seat, actions, skyscraper_height,
                             win, out):
    """Write into ``out[k]`` the value for ``seat`` of the position after ``actions[k]`` (a
    stack move ``origin * 8 + direction``), as :func:`_score` gives it, or ``win`` times the
    seat's return where no stack can move after it."""
    cells = tops.shape[0]
    players = seat_colours.shape[0]
    max_row = reach.shape[0] - 1
    h = heights.copy()
    t = tops.copy()
    counts = np.zeros(players, np.float64)
    tallest = np.zeros(players, np.float64)
    tiles = np.zeros(players, np.float64)
    for k in range(actions.shape[0]):
        origin, direction = actions[k] // 8, actions[k] % 8
        target = landing[origin, direction]
        moved = heights[origin] + heights[target]
        h[target] = moved
        h[origin] = 0
        t[target] = tops[origin]
        t[origin] = -1
        # does any stack still move? the moved one from its new cell, the others as before
        # unless they were landing on the emptied origin (heights of 0 there)
        moves_on = False
        row = min(moved, max_row)
        for d in range(8):
            if h[reach[row, target, d]] > 0:
                moves_on = True
                break
        if not moves_on:
            for cell in range(cells):
                if t[cell] < 0 or cell == target:
                    continue
                for d in range(8):
                    if h[landing[cell, d]] > 0:
                        moves_on = True
                        break
                if moves_on:
                    break
        value = _score(h, t, seat_colours, seat, skyscraper_height, counts, tallest, tiles)
        if moves_on:
            out[k] = value
        else:  # most sky scrapers, then the tallest; all tied or none built is a draw
            best_count, best_tall = -1.0, -1.0
            for s in range(players):
                if counts[s] > best_count or (counts[s] == best_count and tallest[s] > best_tall):
                    best_count, best_tall = counts[s], tallest[s]
            winners = 0
            for s in range(players):
                if counts[s] == best_count and tallest[s] == best_tall:
                    winners += 1
            if best_count == 0 or winners == players:
                out[k] = 0.0
            elif counts[seat] == best_count and tallest[seat] == best_tall:
                out[k] = win
            else:
                out[k] = -win
        h[origin] = heights[origin]
        h[target] = heights[target]
        t[origin] = tops[origin]
        t[target] = tops[target]
