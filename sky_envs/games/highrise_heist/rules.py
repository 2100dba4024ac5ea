"""The rule facts both modes share (the bottom of the folder beside ``layout.py``): the two
phases of a turn, the height of a closed stand, how a stand's top group is found and how the
stands are held as an array, and each mode's special stand (Highrise Heist's golden stand,
Golden Rush's centre)."""

from __future__ import annotations

import numpy as np

TRANSFER, PLACE = 0, 1
PHASES = ("transfer", "place")
HEIGHT = 11  # blocks in a closed stand (a finished highrise)
#: Placement masks depend on each stand only through its height and capacity bit, and
#: heights up to PLACE_LOW all allow any placement (3 blocks) and no closure (the rules
#: cap a placement at 10 or 11 blocks): a stand's *placement class* is
#: (max(height, PLACE_LOW) - PLACE_LOW) * 2 + capacity bit, one of PLACE_CLASSES.
PLACE_LOW = HEIGHT - 4
PLACE_CLASSES = (HEIGHT - PLACE_LOW + 1) * 2
PLACEMENT_MASKS_KEPT = 20_000  # per configuration, about 500 bytes each


_PADS = [[-1] * n for n in range(HEIGHT + 1)]


def cells_array(stands: list[list[int]]) -> np.ndarray:
    """``(stands, 11)`` array of block colours by level, -1 above the top."""
    return np.array([column + _PADS[HEIGHT - len(column)] for column in stands], dtype=np.intp)


def top_group(column: list[int]) -> tuple[int, int]:
    """(colour, size) of the maximal same-coloured run at the top; (-1, 0) when empty."""
    if not column:
        return -1, 0
    colour = column[-1]
    size = 1
    i = len(column) - 2
    while i >= 0 and column[i] == colour:
        size += 1
        i -= 1
    return colour, size


#: Highrise Heist's golden stand (it breaks a 5:5 tie) and Golden Rush's centre
GOLDEN = 0
CENTRE = 0
