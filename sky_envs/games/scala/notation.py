"""Scala move notation (documented in ``sky_envs.scala_v0``): ``e5-d4``, the start and end
cells of the moving stone (a step or a chain of jumps: Scala captures nothing, so the two
cells name the move). ``e5d4`` and ``e5 d4`` read too. A move described in words adds
``(jump)`` to a chain of jumps."""

from __future__ import annotations

import re

from sky_envs.core.notation import normalise, notation_error
from sky_envs.games.scala.board import CELL_BY_NAME, CELL_NAMES, NUM_CELLS
from sky_envs.games.scala.rules import jump_targets

FORM = "a move such as 'e5-d4' (from cell e5 to cell d4; columns a..k, rows 1..14)"
_MOVE = re.compile(r"([a-k][0-9]{1,2})\s*[- ]?\s*([a-k][0-9]{1,2})")


def action_to_string(action: int) -> str:
    start, end = divmod(int(action), NUM_CELLS)
    return f"{CELL_NAMES[start]}-{CELL_NAMES[end]}"


def string_to_action(state, text: str) -> int:
    match = _MOVE.fullmatch(normalise(text, FORM))
    if match is None:
        raise notation_error(text, FORM)
    for name in match.groups():
        if name not in CELL_BY_NAME:
            raise notation_error(text, FORM, f"{name} is not a cell of the board")
    return state.check_legal(CELL_BY_NAME[match[1]] * NUM_CELLS + CELL_BY_NAME[match[2]], text)


def describe_action(state, action: int) -> str:
    """The move's cells, and ``(jump)`` when the stone of the seat to move gets there by jumps."""
    start, end = divmod(int(action), NUM_CELLS)
    kind = ""
    if state.current_player >= 0 and state.stones[state.current_player] >> start & 1:
        occ = state.stones[0] | state.stones[1]
        if jump_targets(start, occ, state.current_player) >> end & 1:
            kind = " (jump)"
    return f"{CELL_NAMES[start]}-{CELL_NAMES[end]}{kind}"
