"""Sky Scrapers position text (``rules/sky_scrapers.md``): written from a state, read back
into a state (built by ``new_state``, the state class the game hands over: this module does
not import the state).

The rules file's notation covers movement positions with seat i = colour i. To write
*every* state exactly, a few optional fields may stand between the rows and ``to_move``;
each is written only when it differs from that default:

* ``colours: b a`` — the colour letter of each seat (random positioning deals them);
* ``phase: choose`` — 2-player random positioning before the second mover picks a colour;
* ``phase: place``, ``tiles_left: 3 3`` and ``first_mover: 1`` — strategic placement.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from sky_envs.core.text import parse_int, position_error, split_position
from sky_envs.games.sky_scrapers.board import board_for
from sky_envs.games.sky_scrapers.rules import CHOOSE, COLOUR_LETTERS, MOVE, PLACE

FIELDS = ("colours", "phase", "tiles_left", "first_mover", "to_move")
_STACK = re.compile(r"^([a-d])([1-9][0-9]*)$")
_ONE_TILE_PER_CELL = "every tile starts on its own cell and none leaves: a stack holds at most one tile per board cell"


def cell_token(state, i: int) -> str:
    """Cell ``i`` as the text writes it: ``#`` no cell, ``.`` empty, else colour and height (``a2``)."""
    if not state.board.cells[i]:
        return "#"
    if state.heights[i] == 0:
        return "."
    return f"{COLOUR_LETTERS[state.tops[i]]}{state.heights[i]}"


def state_to_text(state) -> str:
    rows, cols = state.board.rows, state.board.cols
    lines = [" ".join(cell_token(state, r * cols + c) for c in range(cols)) for r in range(rows)]
    P = state.num_players
    if state.phase != CHOOSE and list(state.seat_colours) != list(range(P)):
        lines.append("colours: " + " ".join(COLOUR_LETTERS[c] for c in state.seat_colours))
    if state.phase != MOVE:
        lines.append(f"phase: {state.phase}")
    if state.phase == PLACE:
        lines.append("tiles_left: " + " ".join(str(n) for n in state.tiles_left))
        lines.append(f"first_mover: {state.first_mover}")
    lines.append(f"to_move: {state.to_move}")
    return "\n".join(lines)


def read_position(game, text: str, new_state: Callable[..., Any]):
    """The position ``text`` describes, built by ``new_state(board, heights, tops,
    seat_colours, phase, to_move, tiles_left, first_mover)``; ``ValueError`` naming the line
    if it is not valid."""
    parsed = split_position(text, FIELDS)
    P = game.num_players
    if len(parsed.rows) != game.rows:
        raise position_error(
            parsed.rows[-1][0] if parsed.rows else None,
            f"the position has {len(parsed.rows)} board rows but this env's board box is "
            f"{game.rows} rows x {game.cols} cols",
        )
    B = game.rows * game.cols
    cells = np.zeros(B, dtype=bool)
    heights = np.zeros(B + 1, dtype=np.int32)
    tops = np.full(B, -1, dtype=np.int8)
    for r, (lineno, line) in enumerate(parsed.rows):
        tokens = line.split()
        if len(tokens) != game.cols:
            raise position_error(lineno, f"{len(tokens)} tokens in {line!r}, expected {game.cols} (the board box is {game.rows} x {game.cols})")
        for c, token in enumerate(tokens):
            i = r * game.cols + c
            if token == "#":
                continue
            cells[i] = True
            if token == ".":
                continue
            match = _STACK.match(token)
            if match is None or COLOUR_LETTERS.index(match[1]) >= P:
                raise position_error(
                    lineno,
                    f"token {c + 1} {token!r}: expected '#' (no cell), '.' (empty cell) or a colour "
                    f"letter {COLOUR_LETTERS[0]}..{COLOUR_LETTERS[P - 1]} followed by a height >= 1 (e.g. 'a2')",
                )
            tops[i] = COLOUR_LETTERS.index(match[1])
            heights[i] = parse_int(match[2], lineno, f"the height of token {c + 1}", 1, B, _ONE_TILE_PER_CELL)
    if not cells.any():
        raise position_error(None, "the position has no board cells")
    tiles_on_board = int(heights.sum())
    if tiles_on_board > cells.sum():
        raise position_error(None, f"{tiles_on_board} tiles on a board of {int(cells.sum())} cells: "
                                   f"{_ONE_TILE_PER_CELL}")

    fields = parsed.fields
    phase_line, phase = fields.get("phase", (None, MOVE))
    if phase not in (MOVE, PLACE, CHOOSE):
        raise position_error(phase_line, f"phase must be move, place or choose, got {phase!r}")
    seat_colours = np.arange(P, dtype=np.int8)
    if "colours" in fields:
        lineno, value = fields["colours"]
        letters = value.split()
        if phase == CHOOSE or sorted(letters) != list(COLOUR_LETTERS[:P]):
            raise position_error(lineno, f"colours must list each of {' '.join(COLOUR_LETTERS[:P])} once, one per seat (and not in the choose phase), got {value!r}")
        seat_colours = np.array([COLOUR_LETTERS.index(x) for x in letters], dtype=np.int8)
    if phase == CHOOSE:
        if P != 2:
            raise position_error(phase_line, "phase choose exists only with 2 players (random positioning)")
        seat_colours[:] = -1
    tiles_left = np.zeros(P, dtype=np.int32)
    first_mover = 0
    if phase == PLACE:
        for key in ("tiles_left", "first_mover"):
            if key not in fields:
                raise position_error(phase_line, f"phase place needs a '{key}:' line")
        lineno, value = fields["tiles_left"]
        counts = value.split()
        if len(counts) != P:
            raise position_error(lineno, f"tiles_left needs {P} numbers (one per seat), got {value!r}")
        tiles_left[:] = [parse_int(n, lineno, "tiles_left", 0, B, _ONE_TILE_PER_CELL) for n in counts]
        if tiles_left.sum() == 0 or tiles_left.sum() > cells.sum() - np.count_nonzero(heights[:B]):
            raise position_error(lineno, "tiles_left must be positive in total and fit on the empty cells")
        if tiles_on_board + int(tiles_left.sum()) > cells.sum():
            raise position_error(lineno, f"{tiles_on_board} tiles on the board and {int(tiles_left.sum())} to place "
                                         f"exceed the board's {int(cells.sum())} cells ({_ONE_TILE_PER_CELL})")
        lineno, value = fields["first_mover"]
        first_mover = parse_int(value, lineno, "first_mover", 0, P - 1)
    else:
        for key in ("tiles_left", "first_mover"):
            if key in fields:
                raise position_error(fields[key][0], f"'{key}:' belongs to phase place only")
    lineno, value = fields.get("to_move", (None, "0"))
    to_move = parse_int(value, lineno, "to_move", 0, P - 1)
    board = board_for(cells.reshape(game.rows, game.cols), game.lines)
    return new_state(board, heights, tops, seat_colours, phase, to_move, tiles_left, first_mover)

