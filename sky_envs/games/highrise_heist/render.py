"""Pictures of both modes: the text board (``render_text``) and the rgb picture
(``render_rgb``), stands drawn as columns."""

from __future__ import annotations

import numpy as np

from sky_envs.core.render import BACKGROUND, EMPTY_CELL, PALETTE, Cell, grid_image, text_image
from sky_envs.games.highrise_heist.rules import HEIGHT, PLACE

GOLD = (212, 175, 55)
BASE = (170, 170, 170)
BLOCKED = (120, 120, 120)
GOLDEN_EMPTY = (240, 226, 160)  # empty levels of the golden stand


def stand_labels(state) -> list[str]:
    """Short column labels: ``0*`` for the golden stand, ``1n``/``1f`` for near/far arms."""
    if state.num_players == 2:
        return ["0*"] + [str(s) for s in range(1, len(state.stands))]
    return ["0*"] + [f"{(s - 1) // 2}{'n' if s % 2 else 'f'}" for s in range(1, len(state.stands))]


def status_line(state) -> str:
    letters = state.game.letters
    if state.is_terminal():
        winners = state.info()["winners"]
        result = "draw" if not winners else "winners " + " ".join(f"player_{w}" for w in winners)
        head = f"game over: {result}"
    elif state.is_truncated():
        head = f"max_turns ({state.game.max_turns}) reached: draw"
    else:
        seat = state.current_player
        phase = "place" if state.phase == PLACE else "transfer"
        extra = " or swap" if state.swap_legal() else ""
        extra += " (1 block)" if state.phase == PLACE and state.max_blocks() == 1 else ""
        head = f"player_{seat} ({letters[seat]}) to {phase}{extra}"
    info = state.info()
    scores = " ".join(f"{letters[s]}:{v}" for s, v in enumerate(info["scores"]))
    kind = "closed" if state.num_players == 2 else "score"
    tail = f"turn {state.turn} | {kind} {scores}"
    if state.num_players == 4:
        tail += " | queue " + (" ".join(str(s) for s in state.queue) or "-")
    return f"{head} | {tail}"


def render_text(state) -> str:
    letters = state.game.letters
    # the header numbers the stands as the move notation does ("3>7", "+55"); Golden Rush's
    # arm names (seat, near/far) get a line of their own below
    labels = ["0*"] + [str(s) for s in range(1, len(state.stands))]
    width = 3
    lines = ["lvl " + "".join(label.rjust(width) for label in labels)]
    for level in range(HEIGHT - 1, -1, -1):
        row = []
        for column in state.stands:
            row.append(letters[column[level]] if level < len(column) else ".")
        lines.append(f"{level + 1:>3} " + "".join(c.rjust(width) for c in row))
    owners = []
    for s in range(len(state.stands)):
        owner = state.owner(s)
        owners.append(letters[owner].upper() if owner >= 0 else "-")
    lines.append("own " + "".join(o.rjust(width) for o in owners))
    if state.num_players == 4:
        lines.append("cap " + "".join(str(c).rjust(width) for c in state.capacities()))
        lines.append("arm " + "".join(label.rjust(width) for label in stand_labels(state)))
    lines.append(status_line(state))
    return "\n".join(lines)


def render_rgb(state) -> np.ndarray:
    caps = state.capacities() if state.num_players == 4 else [HEIGHT] * len(state.stands)
    grid: list[list[Cell | None]] = []
    for level in range(HEIGHT - 1, -1, -1):
        row = []
        for s, column in enumerate(state.stands):
            if level < len(column):
                row.append(Cell(PALETTE[column[level]]))
            elif level >= caps[s]:
                row.append(Cell(BLOCKED))
            else:
                row.append(Cell(GOLDEN_EMPTY if s == 0 else EMPTY_CELL))
        grid.append(row)
    base = []
    for s in range(len(state.stands)):
        owner = state.owner(s)
        if owner >= 0:
            base.append(Cell(PALETTE[owner], "G" if s == 0 else "#"))
        else:
            base.append(Cell(GOLD if s == 0 else BASE, "G" if s == 0 else ""))
    grid.append(base)
    col_labels = "*" + "".join(str(s % 10) for s in range(1, len(state.stands)))
    row_labels = [str(level) for level in range(HEIGHT, 0, -1)] + [""]
    board = grid_image(grid, cell_size=32, col_labels=col_labels, row_labels=row_labels)
    caption = text_image(status_line(state).replace(" | ", "\n"), size=13)
    width = max(board.shape[1], caption.shape[1])
    return np.vstack([_pad(board, width), _pad(caption, width)])


def _pad(image: np.ndarray, width: int) -> np.ndarray:
    if image.shape[1] == width:
        return image
    out = np.empty((image.shape[0], width, 3), dtype=np.uint8)
    out[:] = BACKGROUND
    out[:, :image.shape[1]] = image
    return out
