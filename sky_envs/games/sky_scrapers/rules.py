"""Sky Scrapers' rule facts that every module of the engine reads: the phases of play, the
colour letters and the standard set-up's colours (the bottom of the folder: it imports
nothing of it)."""

from __future__ import annotations

import numpy as np

#: the kinds of decision: stack moves, strategic placement, the colour choice of random set-up
MOVE, PLACE, CHOOSE = "move", "place", "choose"
PHASE_INDEX = {MOVE: 0, PLACE: 1, CHOOSE: 2}   # infos["phase"]
#: colour c's letter in the position text, the notation and the pictures
COLOUR_LETTERS = "abcd"


def standard_colours(cells: np.ndarray, players: int) -> np.ndarray:
    """Colour of every cell under standard positioning: (r + c) % 2, or 2(r % 2) + c % 2."""
    r, c = np.indices(cells.shape)
    colours = (r + c) % 2 if players == 2 else 2 * (r % 2) + c % 2
    return np.where(cells, colours, -1)
