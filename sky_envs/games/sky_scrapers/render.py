"""Pictures of a Sky Scrapers position: the text board (``render_text``: aligned columns
labelled by cell names) and the rgb picture (``render_rgb``: stacks coloured by owner,
labelled by height)."""

from __future__ import annotations

import numpy as np

from sky_envs.core.notation import column_name
from sky_envs.core.render import PALETTE, Cell, grid_image
from sky_envs.games.sky_scrapers.rules import COLOUR_LETTERS
from sky_envs.games.sky_scrapers.text import cell_token


def render_text(state) -> str:
    """The position with aligned columns labelled by cell names, hex rows indented, and a status line."""
    rows, cols = state.board.rows, state.board.cols
    tokens = [cell_token(state, i) for i in range(state.board.size)]
    width = max(len(t) for t in tokens + [column_name(cols - 1)])
    hex_board = state.board.lines == "hex"
    label = len(str(rows))    # cell names of the move notation: column letters, rows from 1 at the top
    lines = [" " * (label + 1) + " ".join(column_name(c).rjust(width) for c in range(cols))]
    for r in range(rows):
        indent = " " * ((width + 1) * r // 2) if hex_board else ""
        lines.append(f"{r + 1:>{label}} " + indent + " ".join(t.rjust(width) for t in tokens[r * cols:(r + 1) * cols]))
    seats = []
    for seat, colour in enumerate(state.seat_colours):
        letter = COLOUR_LETTERS[colour] if colour >= 0 else "?"
        seats.append(f"player_{seat}={letter}")
    counts, _ = state.skyscrapers()
    status = "game over" if state.current_player < 0 else f"player_{state.current_player} to {state.phase}"
    lines.append(f"{status} | {' '.join(seats)} | sky scrapers {counts}")
    return "\n".join(lines)


def render_rgb(state) -> np.ndarray:
    """The board drawn cell by cell, named on its edges as the notation names cells."""
    board = state.board
    grid = []
    for r in range(board.rows):
        row = []
        for c in range(board.cols):
            i = r * board.cols + c
            if not board.cells[i]:
                row.append(None)
            elif state.heights[i] == 0:
                row.append(Cell())
            else:
                h = int(state.heights[i])
                star = "*" if h >= state.game.skyscraper_height else ""
                row.append(Cell(PALETTE[state.tops[i]], f"{h}{star}"))
        grid.append(row)
    if state.current_player >= 0:
        colour = state.seat_colours[state.current_player]
        letter = COLOUR_LETTERS[colour] if colour >= 0 else "?"
        caption = f"player_{state.current_player} ({letter}) to {state.phase}"
    else:
        caption = f"game over, winners {state.winners() if state.is_terminal() else 'none (max_turns)'}"
    # the edges carry the cell names of the move notation: column letters, rows from 1 at the top
    return grid_image(grid, hex_layout=board.lines == "hex", caption=caption,
                      col_labels=[column_name(c) for c in range(board.cols)],
                      row_labels=[str(r + 1) for r in range(board.rows)])
