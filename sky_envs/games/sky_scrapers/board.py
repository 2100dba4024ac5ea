"""The geometry of one Sky Scrapers board: its cells and where a stack of height h lands."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sky_envs.core.boards import box_rays


class Board:
    """Cells of a ``rows x cols`` box plus the landing table of every move.

    ``reach[h, i, d]`` is the cell a stack of height ``h`` on cell ``i`` lands on moving
    along direction ``d``, or ``B`` (a sentinel, one past the last cell) when the path
    leaves the board or crosses a hole. Heights beyond the longest ray share row
    ``max_reach + 1``, which holds only the sentinel, so the table stays small.
    """

    def __init__(self, cells: np.ndarray, lines: str):
        self.rows, self.cols = cells.shape
        self.size = self.rows * self.cols
        self.lines = lines
        self.cells = np.ascontiguousarray(cells, dtype=bool).reshape(-1)
        self.cells.flags.writeable = False
        self.num_cells = int(self.cells.sum())
        paths = box_rays(self.rows, self.cols, lines)
        # a path is open h steps out while every cell up to there is a board cell
        open_cells = np.append(self.cells, False)  # the box's "past the edge" index is no cell
        open_paths = np.logical_and.accumulate(open_cells[paths], axis=0) & self.cells[None, :, None]
        self.max_reach = int(open_paths.any(axis=(1, 2)).sum())
        reach = np.full((self.max_reach + 2, self.size, 8), self.size, dtype=np.intp)
        reach[1:self.max_reach + 1] = np.where(open_paths, paths, self.size)[:self.max_reach]
        reach.flags.writeable = False
        self.reach = reach
        self.index = np.arange(self.size)

    def landing(self, heights: np.ndarray) -> np.ndarray:
        """``(B, 8)`` landing cell of the stack on every cell (``size`` = no move: an empty
        cell, a path off the board or through a hole). ``heights`` has length ``B + 1``."""
        return self.reach[np.minimum(heights[:-1], self.max_reach + 1), self.index]

    def target(self, height: int, origin: int, direction: int) -> int:
        return int(self.reach[min(height, self.max_reach + 1), origin, direction])


@lru_cache(maxsize=64)
def _cached_board(key: bytes, rows: int, cols: int, lines: str) -> Board:
    return Board(np.frombuffer(key, dtype=bool).reshape(rows, cols), lines)


def board_for(cells: np.ndarray, lines: str) -> Board:
    """A shared, read-only :class:`Board` (fixed boards are built once per process)."""
    cells = np.ascontiguousarray(cells, dtype=bool)
    return _cached_board(cells.tobytes(), cells.shape[0], cells.shape[1], lines)
