"""What a Scala seat sees: ``(14, 11, 5)`` float32 planes, row 14 first, columns a..k.

Channels: 0 board cell; 1 the observer's stones; 2 the opponent's stones; 3 the goal the
observer attacks; 4 the goal it defends. Channels 0, 3 and 4 never change: each seat has a
fixed base (:func:`observation_bases`, built once per game), and an observation is a copy
of it with the stones written in by one compiled call (``kernels.observe_stones``).
"""

from __future__ import annotations

import numpy as np

from sky_envs.games.scala.board import CELL_GRID, COLS, DEFENDED_GOAL, GRID_INDEX, ROWS, TARGET_GOAL

NUM_CHANNELS = 5


def observation_bases() -> tuple[np.ndarray, np.ndarray]:
    """Per seat, the channels that never change: 0 cells, 3 target goal, 4 defended goal."""
    bases = []
    for seat in (0, 1):
        base = np.zeros((ROWS, COLS, NUM_CHANNELS), dtype=np.float32)
        base[..., 0] = CELL_GRID
        flat = base.reshape(-1, NUM_CHANNELS)
        flat[GRID_INDEX[TARGET_GOAL[seat]], 3] = 1.0
        flat[GRID_INDEX[DEFENDED_GOAL[seat]], 4] = 1.0
        base.flags.writeable = False
        bases.append(base)
    return bases[0], bases[1]
