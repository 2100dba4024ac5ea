"""Pictures of a Scala position: the text board (``render_text``: coordinates, goals drawn
``*`` while empty) and the rgb picture (``render_rgb``: the diamond with its hole, stones,
goals and coordinates)."""

from __future__ import annotations

import numpy as np

from sky_envs.core.render import EMPTY_CELL, PALETTE, Cell, grid_image
from sky_envs.games.scala.board import CELL_AT, COLS, COLUMN_LETTERS, ROWS, STONE_LETTERS, TARGET_GOAL
from sky_envs.games.scala.rules import END_GOAL, END_MAX_TURNS, END_NO_MOVE, END_SPLIT
from sky_envs.games.scala.text import grid_chars


def _tint(colour: tuple[int, int, int], weight: float = 0.35) -> tuple[int, int, int]:
    """``colour`` mixed into the empty-cell colour: the goal a side attacks is tinted in its colour."""
    return tuple(int(e + (c - e) * weight) for c, e in zip(colour, EMPTY_CELL))


def render_text(state) -> str:
    """The board with coordinates (goals drawn ``*`` while empty) and whose turn it is."""
    lines = []
    for k, row in enumerate(grid_chars(state, goal="*", hole=" ")):
        lines.append(f"{ROWS - k:>2}  " + " ".join(row).rstrip())
    lines.append("    " + " ".join(COLUMN_LETTERS))
    blue, red = state.stones
    lines.append(f"O (player_0, Blue) {blue.bit_count()} stones -> f14;  X (player_1, Red) {red.bit_count()} stones -> f1")
    if state.current_player >= 0:
        p = state.current_player
        lines.append(f"player_{p} ({STONE_LETTERS[p]}) to move, ply {state.plies}")
    elif state.end == END_MAX_TURNS:
        lines.append(f"draw: max_turns={state.game.max_turns} plies reached")
    else:
        w = state.winner
        why = {END_GOAL: "won: a stone reached the goal", END_SPLIT: "won: the opponent's move broke the split rule",
               END_NO_MOVE: "won: the opponent has no legal move"}[state.end]
        lines.append(f"player_{w} ({STONE_LETTERS[w]}) {why}")
    return "\n".join(lines)

def render_rgb(state) -> np.ndarray:
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
