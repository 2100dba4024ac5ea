"""Helpers for the games' move notations (``state.action_to_string`` / ``string_to_action``).

Grid games name a cell like a spreadsheet: the column as letters (``a`` .. ``z``, then
``aa``, ``ab`` ..) and the row as a number counted from 1 at the top row (row index 0), so
``b3`` is row index 2, column index 1; the boards are drawn with these labels.
"""

from __future__ import annotations

import re

_CELL = re.compile(r"([a-z]+)([0-9]+)")


def column_name(c: int) -> str:
    """0 -> ``a``, 25 -> ``z``, 26 -> ``aa``."""
    name = ""
    c += 1
    while c:
        c, rest = divmod(c - 1, 26)
        name = chr(97 + rest) + name
    return name


def cell_name(r: int, c: int) -> str:
    return f"{column_name(c)}{r + 1}"


def column_index(letters: str) -> int:
    index = 0
    for ch in letters:
        index = index * 26 + ord(ch) - 96
    return index - 1


def parse_cell(text: str, rows: int, cols: int, move: str, form: str) -> int:
    """The index ``r * cols + c`` of cell ``text`` (``b3``) in a ``rows x cols`` box;
    ``ValueError`` (naming ``move`` and the expected ``form``) if it is not a cell name or lies
    outside the box."""
    match = _CELL.fullmatch(text)
    if match is None:
        raise notation_error(move, form, f"{text!r} is not a cell name such as a1")
    r, c = int(match[2]) - 1, column_index(match[1])
    if not (0 <= r < rows and 0 <= c < cols):
        raise notation_error(move, form, f"cell {text} is outside the {rows}x{cols} board "
                                         f"(columns a..{column_name(cols - 1)}, rows 1..{rows})")
    return r * cols + c


def normalise(text: object, move_form: str) -> str:
    """``text`` stripped, lower-cased, runs of spaces made one; ``ValueError`` if not a str."""
    if not isinstance(text, str):
        raise ValueError(f"a move must be text in the game's notation ({move_form}), got {text!r}")
    return " ".join(text.split()).lower()


def notation_error(move: str, form: str, why: str = "") -> ValueError:
    """The ``ValueError`` for text that is not a move: the text, why, and the expected form."""
    detail = f": {why}" if why else ""
    return ValueError(f"{move!r} is not a move{detail}; expected {form}")
