"""A picture of a Scala position: the diamond with its hole, stones, goals and coordinates."""

from __future__ import annotations

import numpy as np

from sky_envs.core.render import EMPTY_CELL, PALETTE, Cell, grid_image
from sky_envs.games.scala.board import CELL_AT, COLS, COLUMN_LETTERS, ROWS, STONE_LETTERS, TARGET_GOAL
from sky_envs.games.scala.state import END_MAX_TURNS, ScalaState


def _tint(colour: tuple[int, int, int], weight: float = 0.35) -> tuple[int, int, int]:
    """``colour`` mixed into the empty-cell colour: the goal a side attacks is tinted in its colour."""
    return tuple(int(e + (c - e) * weight) for c, e in zip(colour, EMPTY_CELL))


def render_rgb(state: ScalaState) -> np.ndarray:
    goal_fill = {TARGET_GOAL[0]: _tint(PALETTE[0]), TARGET_GOAL[1]: _tint(PALETTE[1])}
    moved = state.last_move[1] if state.last_move else -1
    grid = []
    for r in range(ROWS, 0, -1):
        row = []
        for c in range(COLS):
            i = CELL_AT.get((r, c))
            if i is None:
                row.append(None)
                continue
            for colour in (0, 1):
                if state.stones[colour] >> i & 1:
                    label = STONE_LETTERS[colour] + ("*" if i == moved else "")
                    row.append(Cell(PALETTE[colour], label))
                    break
            else:
                row.append(Cell(goal_fill.get(i, EMPTY_CELL), "goal" if i in goal_fill else ""))
        grid.append(row)
    if state.current_player >= 0:
        p = state.current_player
        caption = f"player_{p} ({STONE_LETTERS[p]}) to move, ply {state.plies}"
    elif state.end == END_MAX_TURNS:
        caption = f"draw after {state.plies} plies (max_turns)"
    else:
        caption = f"game over: player_{state.winner} ({STONE_LETTERS[state.winner]}) wins ({state.end})"
    image = grid_image(grid, cell_size=40, col_labels=COLUMN_LETTERS,
                       row_labels=[str(r) for r in range(ROWS, 0, -1)], caption=caption)
    return image
