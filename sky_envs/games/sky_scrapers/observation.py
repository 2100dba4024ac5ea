"""What a Sky Scrapers seat sees: ``(rows, cols, players + 4)`` float32 planes.

Channels of seat ``seat``: 0 board cell; 1..P stack heights of the colour of seat
``(seat + k) % P`` (the absolute colours a, b ... while the colour is being chosen); P+1
placement phase; P+2 colour-choice phase; P+3 own tiles left to place.

How it is computed: a state keeps a ``(B, 2P + 3)`` table of every seat's channels
(:func:`observation_table`), which its moves keep up to date entry by entry (columns: 0
cells, ``1 + c`` the heights of colour c's stacks, ``P + 1`` placement phase, ``P + 2``
colour choice, ``P + 3 + s`` seat s's tiles left to place), so that a seat's observation
is one gather of the columns :func:`seat_columns` names.
"""

from __future__ import annotations

import numpy as np

from sky_envs.games.sky_scrapers.board import Board
from sky_envs.games.sky_scrapers.rules import CHOOSE, PLACE


def observation_table(board: Board, heights: np.ndarray, tops: np.ndarray, phase: str,
                      tiles_left: np.ndarray, players: int) -> np.ndarray:
    """Every observation channel of every seat, one row per cell of the box. Heights are
    capped at B: only a loaded position can hold more tiles than the box has cells, and the
    observation space's bound stays true."""
    P, B = players, board.size
    planes = np.zeros((B, 2 * P + 3), dtype=np.float32)
    planes[:, 0] = board.cells
    occupied = tops >= 0
    planes[occupied, 1 + tops[occupied]] = np.minimum(heights[:B][occupied], B)
    planes[:, P + 1] = phase == PLACE
    planes[:, P + 2] = phase == CHOOSE
    planes[:, P + 3:] = tiles_left
    return planes


def seat_columns(phase: str, seat_colours: np.ndarray, players: int) -> list[np.ndarray]:
    """Per seat, the columns of the table its observation gathers; they change only when
    the colours are chosen."""
    P = players
    out = []
    for seat in range(P):
        if phase == CHOOSE:
            colours = range(1, P + 1)
        else:
            colours = [1 + seat_colours[(seat + k) % P] for k in range(P)]
        out.append(np.array([0, *colours, P + 1, P + 2, P + 3 + seat], dtype=np.intp))
    return out
