"""Board symmetries: the reflections and rotations of a board's bounding box under which a
game's rules are unchanged, as index maps over its cells and its actions.

A position mirrored by one of them is as legal as the original and has the same value, and
its best moves are the mirrored best moves. Expert iteration uses that to show the network
every training sample in a random one of its symmetric forms (``alphazero.symmetries``):
up to eight samples for the price of one search, as AlphaGo Zero did on the Go board.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.boards import DIRECTION_STEPS, LINE_DIRECTIONS


class BoardSymmetries:
    """``cells[s, i]`` is where symmetry ``s`` takes cell ``i`` of the observation's
    ``rows x cols`` grid (``i = r * cols + c``); ``actions[s, a]`` is what action ``a``
    becomes. Symmetry 0 is the identity; every row of both maps is a permutation."""

    __slots__ = ("cells", "actions")

    def __init__(self, cells, actions):
        cells, actions = np.array(cells, dtype=np.int64), np.array(actions, dtype=np.int64)
        if cells.ndim != 2 or actions.ndim != 2 or len(cells) != len(actions) or len(cells) == 0:
            raise ValueError(f"symmetries need maps of shape (S, cells) and (S, actions) for the same S >= 1, "
                             f"got {cells.shape} and {actions.shape}")
        for name, table in (("cells", cells), ("actions", actions)):
            if not (np.sort(table, axis=1) == np.arange(table.shape[1])).all():
                raise ValueError(f"every symmetry's {name} map must be a permutation of 0..{table.shape[1] - 1}")
            if not (table[0] == np.arange(table.shape[1])).all():
                raise ValueError(f"symmetry 0 must be the identity; its {name} map is not")
        cells.flags.writeable = actions.flags.writeable = False
        self.cells, self.actions = cells, actions

    def __len__(self) -> int:
        return len(self.cells)

    def transform(self, which: np.ndarray, observations: np.ndarray, *per_action: np.ndarray) -> tuple:
        """Sample ``k`` under symmetry ``which[k]``: ``observations`` of shape ``(n, rows,
        cols, planes)`` with every plane a board plane, and any arrays of shape ``(n,
        num_actions)`` (masks, policy targets) moved with their actions. New arrays."""
        which = np.asarray(which)
        rows = np.arange(len(which))[:, None]
        n, height, width = observations.shape[:3]
        flat = observations.reshape(n, height * width, -1)
        moved = np.empty_like(flat)
        moved[rows, self.cells[which]] = flat
        out = [moved.reshape(observations.shape)]
        for array in per_action:
            image = np.empty_like(array)
            image[rows, self.actions[which]] = array
            out.append(image)
        return tuple(out)


def box_symmetries(rows: int, cols: int, lines: str) -> tuple[np.ndarray, np.ndarray]:
    """The symmetries of a ``rows x cols`` box that keep its line set (``lines``, as in
    :mod:`sky_envs.core.boards`): ``(cells, directions)``, the maps of cells (``(S, rows *
    cols)``) and of the eight direction indices (``(S, 8)``), identity first. A square box
    with all or orthogonal lines has 8 (the square's rotations and reflections), another
    rectangle 4 (the flips and the half turn); hex boards keep only the half turn and, on a
    square box, the swap of the two axial axes (4 at most)."""
    steps = np.array(DIRECTION_STEPS)
    allowed = set(LINE_DIRECTIONS[lines])
    r, c = np.divmod(np.arange(rows * cols), cols)
    cell_maps, direction_maps = [], []
    for swap in (False, True) if rows == cols else (False,):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                rr, cc = (c, r) if swap else (r, c)
                dr, dc = (steps[:, 1], steps[:, 0]) if swap else (steps[:, 0], steps[:, 1])
                if flip_rows:
                    rr, dr = rows - 1 - rr, -dr
                if flip_cols:
                    cc, dc = cols - 1 - cc, -dc
                directions = [DIRECTION_STEPS.index((int(a), int(b))) for a, b in zip(dr, dc)]
                if {directions[d] for d in allowed} == allowed:
                    cell_maps.append(rr * cols + cc)
                    direction_maps.append(directions)
    return np.array(cell_maps), np.array(direction_maps)


__all__ = ["BoardSymmetries", "box_symmetries"]
