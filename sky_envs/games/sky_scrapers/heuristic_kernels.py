"""Sky Scrapers' heuristic compiled with numba: a position's value for a seat
(:meth:`~sky_envs.games.sky_scrapers.heuristic.SkyScrapersHeuristic.value`) and the one-ply
values of every legal move (its ``move_values``), both from :func:`_score`'s counts.

Greedy playouts and the greedy agent ask for the values of every legal move at every ply.
One compiled call per state counts the position once (sky scrapers, tiles and tallest sky
scraper per seat), then plays each move on scratch copies, updates the counts of the two
seats whose stacks it joins and scores them with the float operations, in the order, of the
formula :func:`_score` applies to a whole position; the counts are whole numbers, exact in
floats, so each value is that of scoring the position after the move from scratch, bit for
bit. The batched engine's greedy playouts call :func:`move_values_into` with scratch arrays
of their own (its kernels allocate nothing).
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
    0, tiles under own control) and return the value for ``seat`` (:func:`_value`)."""
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
    return _value(counts, tallest, tiles, seat)


@njit(cache=True)
def _value(counts, tallest, tiles, seat):
    """The sky scraper lead of ``seat``, then ``TILES_WEIGHT`` times its lead in tiles and
    ``TALLEST_WEIGHT`` times its lead in tallest sky scraper (capturing a stack takes all of
    it)."""
    return _lead(counts, seat) + TILES_WEIGHT * _lead(tiles, seat) + TALLEST_WEIGHT * _lead(tallest, seat)


@njit(cache=True)
def _seat_of(colour, seat_colours):
    """The seat playing ``colour``, or -1 (an empty cell, a colour nobody plays)."""
    for s in range(seat_colours.shape[0]):
        if seat_colours[s] == colour:
            return s
    return -1


@njit(cache=True)
def _tallest(heights, tops, colour, skyscraper_height):
    """The tallest sky scraper topped by ``colour``, or 0."""
    tallest = 0.0
    for cell in range(tops.shape[0]):
        if tops[cell] == colour and heights[cell] >= skyscraper_height and heights[cell] > tallest:
            tallest = heights[cell]
    return tallest


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
    move_values_into(heights, tops, landing, reach, seat_colours, seat, actions, actions.shape[0], skyscraper_height,
                     win, out, heights.copy(), tops.copy(), np.zeros((6, seat_colours.shape[0])))


@njit(cache=True)
def move_values_into(heights, tops, landing, reach, seat_colours, seat, actions, count, skyscraper_height, win, out,
                     h, t, scores):
    """:func:`sky_scrapers_move_values` of ``actions[:count]`` on the caller's scratch, so
    that it allocates nothing (the batched engine's greedy playouts call it every ply):
    ``h`` and ``t`` equal to ``heights`` and ``tops`` on entry (restored on return) and
    ``scores`` a ``(6, players)`` float64 array. The position's counts (:func:`_score`) are
    made once; a move changes those of the seats owning its two stacks, which are updated
    (sums of whole numbers, exact in floats: the values are :func:`_score`'s bit for bit)."""
    cells = tops.shape[0]
    players = seat_colours.shape[0]
    max_row = reach.shape[0] - 1
    base_counts, base_tallest, base_tiles = scores[0], scores[1], scores[2]
    counts, tallest, tiles = scores[3], scores[4], scores[5]
    _score(heights, tops, seat_colours, seat, skyscraper_height, base_counts, base_tallest, base_tiles)
    for k in range(count):
        origin, direction = actions[k] // 8, actions[k] % 8
        target = landing[origin, direction]
        moved = heights[origin] + heights[target]
        h[target] = moved
        h[origin] = 0
        t[target] = tops[origin]
        t[origin] = -1
        for s in range(players):
            counts[s], tallest[s], tiles[s] = base_counts[s], base_tallest[s], base_tiles[s]
        mover, taken = _seat_of(tops[origin], seat_colours), _seat_of(tops[target], seat_colours)
        if taken >= 0:                       # the stack landed on leaves its owner
            tiles[taken] -= heights[target]
            if heights[target] >= skyscraper_height:
                counts[taken] -= 1.0
                if heights[target] == tallest[taken]:
                    tallest[taken] = _tallest(h, t, seat_colours[taken], skyscraper_height)
        if mover >= 0:                       # the moved stack's owner now holds both
            tiles[mover] += heights[target]
            if heights[origin] >= skyscraper_height:
                counts[mover] -= 1.0
            if moved >= skyscraper_height:
                counts[mover] += 1.0
                tallest[mover] = max(tallest[mover], moved)
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
        value = _value(counts, tallest, tiles, seat)
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
