"""The seat-relative Skybridge observation: a ``(rows, cols, 34)`` float32 tensor.

Colours are seat-relative: relative colour 0 (and 1 with 2 seats) are the observer's own,
then the colours of the next seats in turn order; with 3 seats relative colour 3 is the
neutral colour. Channels (raw counts or 0/1 flags, so every value is <= the game's
``observation_high``):

====== ==============================================================================
0      height of the tower (storeys)
1      1 if the tower is closed by a roof
2      1 if the tower is open and at the lowest level (its height is the minimum height
       over open towers)
3..6   1 if the top piece has relative colour 0..3 (all 0 on an empty foundation)
7..9   1 if the top piece is a tall block / short block / bridge end (a roof: channel 1)
10..13 1 if the top piece is a bridge end whose partner lies n / e / s / w
14..17 bridges of the observer's colours in this tower (any level) with partner n / e / s / w
18..21 bridges of other seats' colours in this tower (any level) with partner n / e / s / w
22..25 storeys of relative colour 0..3 in this tower
26..29 the observer's supply of slot 0: tall, short, bridges, roofs (constant planes)
30..33 the same for slot 1 (second colour with 2 seats, neutral blocks with 3, 0 with 4)
====== ==============================================================================

How it is computed: every state keeps a ``(rows, cols, NUM_FEATURES)`` table of
*absolute* features (colours 0..3 as they are, plus a constant 1), updated in place when a
piece is placed; a seat's observation is that table times the seat's matrix
(:func:`observation_matrices`), which permutes colours into seat order, sums bridges by
owner and, through the constant column, writes the seat's supply planes. One small matmul
per observation.
"""

from __future__ import annotations

import numpy as np

NUM_CHANNELS = 34

# absolute feature columns; 2..13 describe the top piece and are written in one go
F_HEIGHT, F_LOWEST, F_ROOFED = 0, 1, 2
F_TOP_COLOUR = 3            # + colour (4)
F_TOP_KIND = 7              # + 0 tall, 1 short, 2 bridge (3)
F_TOP_BRIDGE = 10           # + direction (4)
F_BRIDGES = 14              # + colour * 4 + direction (16)
F_STOREYS = 30              # + colour (4)
F_ONE = 34                  # always 1: its row of a seat's matrix holds that seat's supply
NUM_FEATURES = 35


def observation_matrices(game) -> np.ndarray:
    """``(players, NUM_FEATURES, NUM_CHANNELS)`` matrices: features -> seat's channels.

    All entries are 0/1 except row ``F_ONE``, which a state fills with the seat's supply
    (columns 26..33) and updates when a piece leaves the supply (each state owns a copy).
    """
    P = game.num_players
    out = np.zeros((P, NUM_FEATURES, NUM_CHANNELS), dtype=np.float32)
    for seat in range(P):
        m = out[seat]
        m[F_HEIGHT, 0] = m[F_ROOFED, 1] = m[F_LOWEST, 2] = 1
        for k in range(3):
            m[F_TOP_KIND + k, 7 + k] = 1
        for d in range(4):
            m[F_TOP_BRIDGE + d, 10 + d] = 1
        for colour in range(4):
            rank = game.colour_rank[seat][colour]
            m[F_TOP_COLOUR + colour, 3 + rank] = 1
            m[F_STOREYS + colour, 22 + rank] = 1
            owner = game.colour_seat[colour]
            for d in range(4):
                m[F_BRIDGES + colour * 4 + d, (14 if owner == seat else 18) + d] = 1
        for slot in range(game.num_slots):
            m[F_ONE, 26 + slot * 4:30 + slot * 4] = game.initial_supply[seat][slot]
    return out


def _top_rows() -> np.ndarray:
    """Feature columns 2..13 for every top piece code ``colour * 8 + kind``."""
    rows = np.zeros((32, F_BRIDGES - F_ROOFED), dtype=np.float32)
    for colour in range(4):
        for kind in (0, 1, 2, 4, 5, 6, 7):
            row = rows[colour * 8 + kind]
            row[F_TOP_COLOUR - F_ROOFED + colour] = 1
            if kind == 2:
                row[F_ROOFED - F_ROOFED] = 1
            elif kind >= 4:
                row[F_TOP_KIND - F_ROOFED + 2] = 1
                row[F_TOP_BRIDGE - F_ROOFED + kind - 4] = 1
            else:
                row[F_TOP_KIND - F_ROOFED + kind] = 1
    return rows


#: ``TOP_ROWS[piece]`` = feature columns ``F_ROOFED:F_BRIDGES`` when ``piece`` is the top
TOP_ROWS = _top_rows()
#: the same rows as memoryviews, for writing into a state's features through a flat view
TOP_ROW_VIEWS = tuple(memoryview(row) for row in TOP_ROWS)
