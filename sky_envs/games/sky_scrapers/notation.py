"""Sky Scrapers move notation (documented in ``sky_envs.sky_scrapers_v0``).

* ``c3>NE``: move the stack on cell c3 towards the north-east (``c3-NE`` and ``c3 NE`` read too);
* ``+c3``: place a tile on the empty cell c3 (strategic set-up; ``c3`` alone reads too);
* ``a`` / ``b``: choose colour a or b (random set-up, 2 players; ``colour a`` reads too).

Cells as in :mod:`sky_envs.core.notation`: column letter, row number from 1 at the top.
"""

from __future__ import annotations

import re

from sky_envs.core.boards import DIRECTION_NAMES
from sky_envs.core.notation import cell_name, normalise, notation_error, parse_cell
from sky_envs.games.sky_scrapers.rules import COLOUR_LETTERS

FORM = ("a move such as 'c3>NE' (the stack on c3 moves north-east; directions N NE E SE S SW W NW), "
        "a placement '+c3' or a colour choice 'a' / 'b'")
_MOVE = re.compile(r"([a-z]+[0-9]+)\s*[>\- ]\s*([a-z]+)")
_PLACE = re.compile(r"\+?\s*([a-z]+[0-9]+)")
_CHOOSE = re.compile(r"(?:colou?r\s*)?([a-z])")
_DIRECTIONS = [d.lower() for d in DIRECTION_NAMES]


def _decode(state, action: int) -> tuple[str, str, str]:
    """(kind, cell name or colour letter, direction name) of ``action``."""
    B, cols = state.board.size, state.board.cols
    if action < 8 * B:
        origin, d = divmod(action, 8)
        return "move", cell_name(*divmod(origin, cols)), DIRECTION_NAMES[d]
    if action < 9 * B:
        return "place", cell_name(*divmod(action - 8 * B, cols)), ""
    return "choose", COLOUR_LETTERS[action - 9 * B], ""


def action_to_string(state, action: int) -> str:
    kind, where, direction = _decode(state, action)
    return {"move": f"{where}>{direction}", "place": f"+{where}", "choose": where}[kind]


def string_to_action(state, text: str) -> int:
    move = normalise(text, FORM)
    board = state.board
    B = board.size
    if match := _MOVE.fullmatch(move):
        if match[2] not in _DIRECTIONS:
            raise notation_error(text, FORM, f"{match[2].upper()!r} is not a direction")
        action = parse_cell(match[1], board.rows, board.cols, text, FORM) * 8 + _DIRECTIONS.index(match[2])
    elif match := _PLACE.fullmatch(move):
        action = 8 * B + parse_cell(match[1], board.rows, board.cols, text, FORM)
    elif (match := _CHOOSE.fullmatch(move)) and match[1] in "ab":
        action = 9 * B + "ab".index(match[1])
    else:
        raise notation_error(text, FORM)
    return state.check_legal(action, text)


def describe_action(state, action: int) -> str:
    kind, where, direction = _decode(state, action)
    return {"move": f"move the stack on {where} {direction}", "place": f"place a tile on {where}",
            "choose": f"choose colour {where}"}[kind]
