"""Sky Scrapers' rule facts that every module of the engine reads: the phases of play and
the colour letters (the bottom of the folder: it imports nothing of it)."""

from __future__ import annotations

#: the kinds of decision: stack moves, strategic placement, the colour choice of random set-up
MOVE, PLACE, CHOOSE = "move", "place", "choose"
PHASE_INDEX = {MOVE: 0, PLACE: 1, CHOOSE: 2}   # infos["phase"]
#: colour c's letter in the position text, the notation and the pictures
COLOUR_LETTERS = "abcd"
