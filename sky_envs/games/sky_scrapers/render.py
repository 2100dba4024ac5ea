"""A picture of a Sky Scrapers position: stacks coloured by owner, labelled by height."""

from __future__ import annotations

import numpy as np

from sky_envs.core.render import PALETTE, Cell, grid_image
from sky_envs.games.sky_scrapers.state import COLOUR_LETTERS, SkyScrapersState


def render_rgb(state: SkyScrapersState) -> np.ndarray:
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
    return grid_image(grid, hex_layout=board.lines == "hex", caption=caption)
