"""The Scala board: 88 cells, their names and numbers, and the tables built once at import.

Cells are numbered from row 1 upward, left to right inside a row (f1 = 0, e2 = 1, ...,
f14 = 87), exactly as the action layout of ``rules/scala.md``. Positions are two 88-bit
Python ints (bit ``i`` = cell ``i``), one per colour; every table below is in that numbering.
"""

from __future__ import annotations

import numpy as np

ROWS, COLS = 14, 11
COLUMN_LETTERS = "abcdefghijk"
#: the board as the rules file draws it, row 14 first ('#' no cell, '.' cell, 'G' goal)
LAYOUT = (
    "#####G#####",
    "####...####",
    "###.....###",
    "##.......##",
    "#.........#",
    "...........",
    "....###....",
    "....###....",
    "...........",
    "#.........#",
    "##.......##",
    "###.....###",
    "####...####",
    "#####G#####",
)

#: (row 1..14, column 0..10) of every cell, in cell-number order
CELL_RC: tuple[tuple[int, int], ...] = tuple(
    (row, col) for row in range(1, ROWS + 1) for col in range(COLS) if LAYOUT[ROWS - row][col] != "#"
)
NUM_CELLS = len(CELL_RC)
assert NUM_CELLS == 88
CELL_AT: dict[tuple[int, int], int] = {rc: i for i, rc in enumerate(CELL_RC)}
CELL_NAMES: tuple[str, ...] = tuple(f"{COLUMN_LETTERS[c]}{r}" for r, c in CELL_RC)
CELL_BY_NAME: dict[str, int] = {name: i for i, name in enumerate(CELL_NAMES)}
FULL = (1 << NUM_CELLS) - 1

BLUE, RED = 0, 1                      # colour = seat: Blue is player_0, Red is player_1
STONE_LETTERS = "OX"
COLOUR_NAMES = ("Blue", "Red")
#: the goal each colour attacks (and the other colour defends)
TARGET_GOAL = (CELL_BY_NAME["f14"], CELL_BY_NAME["f1"])
DEFENDED_GOAL = (TARGET_GOAL[1], TARGET_GOAL[0])
STONES_PER_SIDE = 14

_START = (
    "c7 d7 h7 i7 c6 d6 e6 f6 g6 h6 i6 e5 f5 g5",
    "e10 f10 g10 c9 d9 e9 f9 g9 h9 i9 c8 d8 h8 i8",
)


def mask_of(names) -> int:
    """Bitmask of cells given by name (``"e5 f5"`` or an iterable of names)."""
    if isinstance(names, str):
        names = names.split()
    out = 0
    for name in names:
        out |= 1 << CELL_BY_NAME[name]
    return out


START = (mask_of(_START[0]), mask_of(_START[1]))

# direction (d_row, d_col) with rows counted upward
DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))

#: ADJ[i]: bitmask of the 8-neighbours of cell i
ADJ: tuple[int, ...]
#: JUMPS[colour][i]: (over_bit, land_bit, land) for every jump from i whose landing cell
#: exists and is not the goal ``colour`` defends
JUMPS: tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]
#: STEPS[colour][i]: ADJ[i] without the goal ``colour`` defends
STEPS: tuple[tuple[int, ...], ...]


def _tables():
    adj, jumps = [], []
    for r, c in CELL_RC:
        a, js = 0, []
        for dr, dc in DIRECTIONS:
            over = CELL_AT.get((r + dr, c + dc))
            if over is None:
                continue
            a |= 1 << over
            land = CELL_AT.get((r + 2 * dr, c + 2 * dc))
            if land is not None:
                js.append((1 << over, 1 << land, land))
        adj.append(a)
        jumps.append(js)
    steps, jumps_by_colour = [], []
    for colour in (BLUE, RED):
        no = 1 << DEFENDED_GOAL[colour]
        steps.append(tuple(a & ~no for a in adj))
        jumps_by_colour.append(tuple(tuple(j for j in js if not j[1] & no) for js in jumps))
    return tuple(adj), tuple(jumps_by_colour), tuple(steps)


ADJ, JUMPS, STEPS = _tables()

#: NEIGHBOURS[i]: the 8-neighbours of cell i, padded with -1; JUMP_OVERS[i, k] and
#: JUMP_LANDINGS[i, k]: the cell jumped over and the landing cell of the jump from i in
#: direction ``DIRECTIONS[k]``, both ``NUM_CELLS`` (no cell) where the landing is off the
#: board. Arrays for the compiled move generator (``kernels.py``).
NEIGHBOURS: np.ndarray
JUMP_OVERS: np.ndarray
JUMP_LANDINGS: np.ndarray


def _cell_arrays():
    neighbours = np.full((NUM_CELLS, 8), -1, dtype=np.int64)
    overs = np.full((NUM_CELLS, 8), NUM_CELLS, dtype=np.int64)
    lands = np.full((NUM_CELLS, 8), NUM_CELLS, dtype=np.int64)
    for i, (r, c) in enumerate(CELL_RC):
        k = 0
        for direction, (dr, dc) in enumerate(DIRECTIONS):
            over = CELL_AT.get((r + dr, c + dc))
            if over is None:
                continue
            neighbours[i, k] = over
            k += 1
            land = CELL_AT.get((r + 2 * dr, c + 2 * dc))
            if land is not None:
                overs[i, direction], lands[i, direction] = over, land
    return neighbours, overs, lands


NEIGHBOURS, JUMP_OVERS, JUMP_LANDINGS = _cell_arrays()


def _possible_actions() -> np.ndarray:
    """Every action ``from * NUM_CELLS + to`` a stone of either colour can make in some
    position: a step to a neighbour, or a chain of jumps to any cell that jumps from ``from``
    can reach on the board, never landing in the colour's defended goal (a position with a
    stone under each jump and the landings empty plays that chain)."""
    actions = set()
    for colour in (BLUE, RED):
        for start in range(NUM_CELLS):
            actions.update(start * NUM_CELLS + to for to in range(NUM_CELLS) if STEPS[colour][start] >> to & 1)
            reached, todo = {start}, [start]
            while todo:
                for _, _, land in JUMPS[colour][todo.pop()]:
                    if land not in reached:
                        reached.add(land)
                        todo.append(land)
            actions.update(start * NUM_CELLS + to for to in reached - {start})
    return np.array(sorted(actions), dtype=np.int64)


#: every action legal in some position (Game.possible_actions): 2,420 of the 7,744
POSSIBLE_ACTIONS = _possible_actions()
POSSIBLE_ACTIONS.flags.writeable = False

#: observation/text grid index (row 14 first, columns a..k) of every cell: ``(14 - row) * 11 + col``
GRID_INDEX = np.array([(ROWS - r) * COLS + c for r, c in CELL_RC], dtype=np.intp)
#: True where the 14 x 11 box has a board cell
CELL_GRID = np.zeros((ROWS, COLS), dtype=bool)
CELL_GRID.reshape(-1)[GRID_INDEX] = True


def bits_to_array(mask: int) -> np.ndarray:
    """88 bools, one per cell, from a bitmask."""
    return np.unpackbits(np.frombuffer(mask.to_bytes(11, "little"), dtype=np.uint8),
                         bitorder="little").view(bool)


def cells_of(mask: int) -> list[int]:
    """Cell numbers of the set bits, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def names_of(mask: int) -> str:
    return " ".join(CELL_NAMES[i] for i in cells_of(mask))
