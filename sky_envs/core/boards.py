"""Board shapes for grid games: line sets, mask strings, seeded random connected shapes.

A board is a boolean ``cells`` array of shape ``(rows, cols)`` inside its bounding box.
Directions are indexed 0..7 = N, NE, E, SE, S, SW, W, NW (r = 0 is the top row).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sky_envs.core.options import MAX_SIDE

DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
#: direction index -> (d_row, d_col)
DIRECTION_STEPS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
#: the directions each line set allows (hex: axial coordinates, row = r, col = q)
LINE_DIRECTIONS = {
    "all": (0, 1, 2, 3, 4, 5, 6, 7),
    "orthogonal": (0, 2, 4, 6),
    "hex": (0, 1, 2, 4, 5, 6),
}


def parse_mask(mask: str) -> np.ndarray:
    """A mask string (rows split by newlines or ``/``; ``.`` cell, ``#`` no cell) -> bool array.

    At most ``MAX_SIDE`` rows of at most ``MAX_SIDE`` characters; a longer string is refused
    before it is split (room is left for separators and indentation).
    """
    if len(mask) > 4 * MAX_SIDE * (MAX_SIDE + 2):
        raise ValueError(f"board mask of {len(mask)} characters is too big: a board has at most {MAX_SIDE} rows "
                         f"and {MAX_SIDE} columns")
    rows = [row.strip() for row in mask.replace("/", "\n").splitlines() if row.strip()]
    if not rows:
        raise ValueError("board mask is empty: expected rows of '.' (cell) and '#' (no cell)")
    width = len(rows[0])
    if len(rows) > MAX_SIDE or width > MAX_SIDE:
        raise ValueError(f"board mask is {len(rows)}x{width}: a board has at most {MAX_SIDE} rows and {MAX_SIDE} columns")
    for number, row in enumerate(rows, start=1):
        if len(row) != width:
            raise ValueError(f"board mask row {number} {row!r} has {len(row)} characters, expected {width} like row 1")
        bad = set(row) - {".", "#"}
        if bad:
            raise ValueError(f"board mask row {number} {row!r} has {sorted(bad)}: only '.' (cell) and '#' (no cell) are allowed")
    return np.array([[ch == "." for ch in row] for row in rows], dtype=bool)


@lru_cache(maxsize=None)
def neighbour_table(rows: int, cols: int, lines: str) -> tuple[tuple[tuple[tuple[int, int], ...], ...], ...]:
    """``table[r][c]``: the in-box neighbours of (r, c) along the given line set, in
    direction order (built once per box: random boards are grown from it)."""
    return tuple(tuple(tuple((r + dr, c + dc) for dr, dc in (DIRECTION_STEPS[d] for d in LINE_DIRECTIONS[lines])
                             if 0 <= r + dr < rows and 0 <= c + dc < cols)
                       for c in range(cols))
                 for r in range(rows))


def is_connected(cells: np.ndarray, lines: str) -> bool:
    rows, cols = cells.shape
    table = neighbour_table(rows, cols, lines)
    todo = [tuple(p) for p in np.argwhere(cells)[:1]]
    seen = set(todo)
    while todo:
        r, c = todo.pop()
        for p in table[r][c]:
            if cells[p] and p not in seen:
                seen.add(p)
                todo.append(p)
    return len(seen) == int(cells.sum())


def random_connected_cells(rows: int, cols: int, count: int, lines: str, rng: np.random.Generator) -> np.ndarray:
    """A seeded random shape of exactly ``count`` cells, connected along ``lines``.

    Grown from a random cell by adding a uniformly chosen frontier cell at a time, which
    gives blobs with bays and arms rather than only rectangles.
    """
    if not 1 <= count <= rows * cols:
        raise ValueError(f"a random board needs 1..{rows * cols} cells in a {rows}x{cols} box, got {count}")
    table = neighbour_table(rows, cols, lines)
    cells = np.zeros((rows, cols), dtype=bool)
    start = (int(rng.integers(rows)), int(rng.integers(cols)))
    cells[start] = True
    frontier: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = {start}  # on the board or in the frontier

    def grow(p: tuple[int, int]) -> None:
        for q in table[p[0]][p[1]]:
            if q not in seen:
                seen.add(q)
                frontier.append(q)

    grow(start)
    for _ in range(count - 1):
        pick = frontier.pop(int(rng.integers(len(frontier))))
        cells[pick] = True
        grow(pick)
    return cells


@lru_cache(maxsize=None)
def box_rays(rows: int, cols: int, lines: str) -> np.ndarray:
    """``paths[h - 1, i, d]``: the cell ``h`` steps from cell ``i`` along direction ``d`` in
    a full ``rows x cols`` box (``h`` = 1 .. longest side - 1), or ``rows * cols`` past the
    box's edge and for directions not in ``lines``. A board with holes cuts these paths at
    its first hole (read-only; built once per box)."""
    size = rows * cols
    steps = max(rows, cols) - 1
    paths = np.full((max(steps, 1), size, 8), size, dtype=np.intp)
    r, c = np.divmod(np.arange(size), cols)
    for d in LINE_DIRECTIONS[lines]:
        dr, dc = DIRECTION_STEPS[d]
        for h in range(1, steps + 1):
            rr, cc = r + h * dr, c + h * dc
            inside = (rr >= 0) & (rr < rows) & (cc >= 0) & (cc < cols)
            paths[h - 1, inside, d] = rr[inside] * cols + cc[inside]
    paths.flags.writeable = False
    return paths
