"""Scala for the play page: the position as a scene (``board_scene``: the diamond with its
hole, the goals tinted in the colour that attacks them, stones, coordinates a..k and
14..1), where each legal action starts and ends (``action_ways``: the stone's cell and the
cell it ends on, a step or a chain of jumps) and the result in words (``result_words``)."""

from __future__ import annotations

from sky_envs.core import scene as sc
from sky_envs.games.scala.board import CELL_AT, CELL_NAMES, COLOUR_NAMES, COLS, COLUMN_LETTERS, NUM_CELLS, ROWS, TARGET_GOAL
from sky_envs.games.scala.rules import END_GOAL, END_MAX_TURNS, END_NO_MOVE, END_SPLIT

CELL = 36
MARGIN = 30


def _centre(k: int, c: int) -> tuple[float, float]:
    """Drawing centre of grid row k (0 = row 14, at the top) and column c."""
    return MARGIN + CELL * (c + 0.5), MARGIN + CELL * (k + 0.5)


def _tint(colour: str) -> str:
    """``colour`` mixed into the empty-cell colour (a goal's tint)."""
    mix = [int(int(colour[k:k + 2], 16) * 0.35 + int(sc.EMPTY[k:k + 2], 16) * 0.65) for k in (1, 3, 5)]
    return "#{:02x}{:02x}{:02x}".format(*mix)


def board_scene(state, shown_seats=None) -> dict:
    """The position as a scene (``sky_envs.core.scene``); nothing is hidden in this game."""
    goal_of = {cell: colour for colour, cell in enumerate(TARGET_GOAL)}
    items = []
    for k in range(ROWS):
        row = ROWS - k
        for c in range(COLS):
            i = CELL_AT.get((row, c))
            if i is None:
                continue
            x, y = _centre(k, c)
            name = CELL_NAMES[i]
            fill = _tint(sc.COLOURS[goal_of[i]]) if i in goal_of else sc.EMPTY
            shapes = [sc.rect(x - CELL / 2 + 1, y - CELL / 2 + 1, CELL - 2, CELL - 2, fill=fill,
                              stroke=sc.INK_COLOUR, width=1)]
            title = name
            if i in goal_of:
                title += f": the goal {COLOUR_NAMES[goal_of[i]]} (player_{goal_of[i]}) attacks"
                shapes.append(sc.text(x, y + 4, "goal", 10, fill=sc.INK_COLOUR))
            for colour in (0, 1):
                if state.stones[colour] >> i & 1:
                    shapes.append(sc.circle(x, y, CELL * 0.36, fill=sc.COLOURS[colour], stroke=sc.INK_COLOUR, width=1.5))
                    title = f"{name}: a {COLOUR_NAMES[colour]} stone (player_{colour})"
            items.append(sc.thing(name, shapes, title))
    items += sc.edge_labels(ROWS, COLS, _centre, CELL * 0.8, size=12, row_name=lambda k: str(ROWS - k),
                            col_name=lambda c: COLUMN_LETTERS[c])
    seats = [sc.seat_entry(s, [s], COLOUR_NAMES[s]) for s in (0, 1)]
    blue, red = (mask.bit_count() for mask in state.stones)
    caption = f"Blue (player_0) {blue} stones, attacks f14 | Red (player_1) {red} stones, attacks f1"
    return sc.scene(2 * MARGIN + COLS * CELL, 2 * MARGIN + ROWS * CELL, items, seats, caption)


def action_ways(state, actions) -> list[list[tuple[str | None, str]]]:
    """For each action: ``[(start cell, end cell)]``."""
    return [[(CELL_NAMES[a // NUM_CELLS], CELL_NAMES[a % NUM_CELLS])] for a in map(int, actions)]


def result_words(state) -> str:
    """Who won and why, by the way the game ended (``state.end``)."""
    if state.end == END_MAX_TURNS or not state.end:
        return f"The game was cut at max_turns={state.game.max_turns} plies: a draw."
    w = state.winner
    winner, loser = f"player_{w} ({COLOUR_NAMES[w]})", f"player_{1 - w} ({COLOUR_NAMES[1 - w]})"
    if state.end == END_GOAL:
        return f"{winner} wins: one of its stones reached the goal it attacks, {CELL_NAMES[TARGET_GOAL[w]]}."
    if state.end == END_SPLIT:
        return (f"{winner} wins: {loser}'s last move split the stones so that no mixed group was left, "
                "or the biggest mixed groups tied; the split rule makes the mover lose.")
    if state.end == END_NO_MOVE:
        return f"{winner} wins: {loser} has no legal move left, and a player who cannot move loses."
    return f"{winner} wins ({state.end})."
