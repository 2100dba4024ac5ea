"""Sky Scrapers' move phase compiled with numba: applying a stack move and the next mask.

In Python each of these is a dozen numpy calls on arrays of a few hundred entries, and the
calls, not the work, were the cost of a step; one compiled call each does the same work.
Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def apply_move(heights, tops, landing, planes, reach, origin, direction, players):
    """Move the stack on ``origin`` along ``direction`` onto the stack it lands on, and keep
    ``landing`` (per cell and direction, where its stack lands) and the observation
    ``planes`` (column ``1 + c``: heights of colour ``c``, capped at the cell count) up to date."""
    cells = tops.shape[0]
    target = landing[origin, direction]
    height = heights[target] + heights[origin]
    colour = tops[origin]
    heights[target] = height
    tops[target] = colour
    heights[origin] = 0
    tops[origin] = -1
    row = min(height, reach.shape[0] - 1)
    for d in range(8):
        landing[origin, d] = cells
        landing[target, d] = reach[row, target, d]
    for c in range(1, players + 1):
        planes[origin, c] = 0
        planes[target, c] = 0
    planes[target, 1 + colour] = min(height, cells)


@njit(cache=True)
def movement_mask(heights, tops, landing, seat_colours, seat, mask):
    """Mark in ``mask`` (all False on entry) the stack moves of ``seat``, or of the first seat
    after it that has one; return that seat, or -1 when no seat can move. A stack may move
    along a direction when it lands on a stack (``heights`` is 0 at the sentinel cell)."""
    players = seat_colours.shape[0]
    for k in range(players):
        mover = (seat + k) % players
        colour = seat_colours[mover]
        found = False
        for cell in range(tops.shape[0]):
            if tops[cell] == colour:
                for d in range(8):
                    if heights[landing[cell, d]] > 0:
                        mask[cell * 8 + d] = True
                        found = True
        if found:
            return mover
    return -1
