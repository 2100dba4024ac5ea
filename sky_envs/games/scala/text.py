"""Scala position text (``rules/scala.md``): written from a state, read back into a state
(built by ``new_state``, the state class the game hands over: this module does not import
the state).

The text is the 14 board rows from row 14 down to row 1, 11 characters each (``#`` no cell,
``.`` empty cell, goals included, ``O`` Blue, ``X`` Red), then ``to_move: O`` or ``to_move: X``.

One extension, written only when needed: a game lost by the split rule (rule 2: nothing
left; rule 4: tied groups) cannot be told from its board, so its text has a line
``winner: O`` or ``winner: X`` before ``to_move`` (the winner is then the side to move, as
the loser made the last move). Every other position, finished or not, is the plain notation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sky_envs.core.text import position_error, split_position
from sky_envs.games.scala.board import (
    CELL_AT,
    CELL_NAMES,
    COLOUR_NAMES,
    COLS,
    COLUMN_LETTERS,
    LAYOUT,
    ROWS,
    STONE_LETTERS,
    STONES_PER_SIDE,
    TARGET_GOAL,
)
from sky_envs.games.scala.rules import END_SPLIT


def grid_chars(state, empty: str = ".", goal: str = ".", hole: str = "#") -> list[list[str]]:
    """The board's characters, row 14 first: ``hole`` off the board, ``O`` / ``X`` stones,
    ``goal`` on an empty goal, ``empty`` on the other empty cells."""
    blue, red = state.stones
    rows = []
    for r in range(ROWS, 0, -1):
        line = []
        for c in range(COLS):
            i = CELL_AT.get((r, c))
            if i is None:
                line.append(hole)
            elif blue >> i & 1:
                line.append("O")
            elif red >> i & 1:
                line.append("X")
            else:
                line.append(goal if LAYOUT[ROWS - r][c] == "G" else empty)
        rows.append(line)
    return rows


def state_to_text(state) -> str:
    lines = ["".join(row) for row in grid_chars(state)]
    if state.end == END_SPLIT:
        lines.append(f"winner: {STONE_LETTERS[state.winner]}")
    lines.append(f"to_move: {STONE_LETTERS[state.to_move]}")
    return "\n".join(lines)


def read_position(text: str, new_state: Callable[..., Any]):
    """The position ``text`` describes, built by ``new_state(blue, red, to_move,
    split_winner=...)``; ``ValueError`` naming the line if it is not valid."""
    parsed = split_position(text, ("winner", "to_move"))
    rows = parsed.rows
    if len(rows) > ROWS:
        raise position_error(rows[ROWS][0], f"board row {ROWS + 1} {rows[ROWS][1]!r}: the board has only {ROWS} rows (14 down to 1)")
    if len(rows) < ROWS:
        lineno = rows[-1][0] + 1 if rows else 1
        raise position_error(lineno, f"expected {ROWS} board rows (row 14 down to row 1), got {len(rows)}")
    stones = [0, 0]
    for k, (lineno, line) in enumerate(rows):
        r = ROWS - k
        if len(line) != COLS:
            raise position_error(lineno, f"row {r} {line!r} has {len(line)} characters, expected {COLS} (columns a..k, no spaces)")
        for c, ch in enumerate(line):
            where = f"row {r} column {COLUMN_LETTERS[c]}"
            if ch not in "#.OX":
                raise position_error(lineno, f"{where}: unknown character {ch!r}, expected '#' (no cell), '.' (empty cell), 'O' (Blue) or 'X' (Red)")
            i = CELL_AT.get((r, c))
            if i is None:
                if ch != "#":
                    what = "the hole" if 7 <= r <= 8 and 4 <= c <= 6 else "no cell (outside the diamond)"
                    raise position_error(lineno, f"{where}: {COLUMN_LETTERS[c]}{r} is {what}; it must be '#', got {ch!r}")
            elif ch == "#":
                raise position_error(lineno, f"{where}: {CELL_NAMES[i]} is a board cell; write '.', 'O' or 'X', not '#'")
            elif ch != ".":
                stones["OX".index(ch)] |= 1 << i
    for colour in (0, 1):
        count = stones[colour].bit_count()
        if count > STONES_PER_SIDE:
            raise position_error(None, f"{count} {COLOUR_NAMES[colour]} stones ('{STONE_LETTERS[colour]}'): "
                                       f"each side has at most {STONES_PER_SIDE}")
    if all(stones[c] >> TARGET_GOAL[c] & 1 for c in (0, 1)):
        raise position_error(None, "both sides stand on the goal they attack: reaching it ends the game, so at most one can")
    if "to_move" not in parsed.fields:
        raise position_error(rows[-1][0] + 1, "missing 'to_move: O' or 'to_move: X' after the 14 board rows")
    lineno, value = parsed.fields["to_move"]
    if value not in ("O", "X"):
        raise position_error(lineno, f"to_move must be 'O' (Blue, player_0) or 'X' (Red, player_1), got {value!r}")
    split_winner = -1
    if "winner" in parsed.fields:
        w_lineno, w_value = parsed.fields["winner"]
        if w_value not in ("O", "X"):
            raise position_error(w_lineno, f"winner must be 'O' or 'X' (the side that won by the split rule), got {w_value!r}")
        if w_value != value:
            raise position_error(w_lineno, f"winner: {w_value} marks a game lost by the split rule on the loser's "
                                           f"own move, so the winner is the side to move: expected 'to_move: {w_value}'")
        if any(stones[c] >> TARGET_GOAL[c] & 1 for c in (0, 1)):
            raise position_error(w_lineno, "winner: marks a split loss, but a stone stands on the goal its side attacks")
        split_winner = "OX".index(w_value)
    return new_state(stones[0], stones[1], "OX".index(value), split_winner=split_winner)

