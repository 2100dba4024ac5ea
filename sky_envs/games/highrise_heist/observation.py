"""Seat-relative observation tensors ``(stands, 11 levels, channels)``, float32 in [0, 1].

Level 0 is the bottom block. Colours are relative: channel "relative seat k" means the
colour of seat ``(observer + k) % players`` (k = 0: the observer's own colour). The channel
lists are documented in ``highrise_heist_v0`` and ``golden_rush_v0``.
"""

from __future__ import annotations

import numpy as np

from sky_envs.games.highrise_heist.state import HEIGHT, PLACE, TRANSFER

HEIST_CHANNELS = 14
RUSH_CHANNELS = 26

#: RANGES[lo, h, hi] -> (11 levels, 2): [lo <= level < h, h <= level < hi] (top group, room)
_RANGES = np.zeros((HEIGHT + 1, HEIGHT + 1, HEIGHT + 1, HEIGHT, 2), dtype=np.float32)
for _lo in range(HEIGHT + 1):
    for _h in range(_lo, HEIGHT + 1):
        _RANGES[_lo, _h, :, _lo:_h, 0] = 1.0
        for _hi in range(_h, HEIGHT + 1):
            _RANGES[_lo, _h, _hi, _h:_hi, 1] = 1.0
_RANGES = _RANGES.reshape(-1, HEIGHT, 2)  # row (lo * 12 + h) * 12 + hi


def _relative_colours(players: int) -> list[np.ndarray]:
    """Per observer: table colour -> one-hot relative colour; index -1 (empty) -> zeros."""
    tables = []
    for seat in range(players):
        table = np.zeros((players + 1, players), dtype=np.float32)
        for colour in range(players):
            table[colour, (colour - seat) % players] = 1.0
        tables.append(table)
    return tables


_REL2 = _relative_colours(2)
_REL4 = _relative_colours(4)


def _column_table(stands: int, owners: int, static: np.ndarray) -> np.ndarray:
    """Row ``(owners + 1) * s + code`` -> static features of stand s, closed flag, relative
    owner one-hot; code 0 = open, 1 + k = closed and owned by relative seat k."""
    table = np.zeros((stands * (owners + 1), static.shape[1] + 1 + owners), dtype=np.float32)
    for s in range(stands):
        for code in range(owners + 1):
            row = table[(owners + 1) * s + code]
            row[:static.shape[1]] = static[s]
            if code:
                row[static.shape[1]] = 1.0
                row[static.shape[1] + code] = 1.0
    return table


def _heist_static() -> np.ndarray:
    static = np.zeros((10, 1), dtype=np.float32)
    static[0, 0] = 1.0  # the golden stand
    return static


_HEIST_COLUMNS = _column_table(10, 2, _heist_static())


def _shape_rows(heights: list[int], groups: list[int], limits: list[int]) -> list[int]:
    """Per stand: the row of ``_RANGES`` for its top group and its room below the limit."""
    return [((h - g) * 12 + h) * 12 + (limit if limit > h else h)
            for h, g, limit in zip(heights, groups, limits)]


def heist_observation(state, seat: int) -> np.ndarray:
    stands = state.stands
    obs = np.empty((10, HEIGHT, HEIST_CHANNELS), dtype=np.float32)
    obs[:, :, 0:2] = _REL2[seat][state.cells]
    heights = [len(column) for column in stands]
    obs[:, :, 2:4] = _RANGES[_shape_rows(heights, state.groups, state._placement_limits())]
    codes = [3 * s + (0 if h < HEIGHT else (1 if stands[s][-1] == seat else 2)) for s, h in enumerate(heights)]
    obs[:, :, 4:8] = _HEIST_COLUMNS[codes][:, None, :]
    obs[:, :, 8:14] = (
        state.current_player == seat,
        state.phase == PLACE,
        state.turn == 0,
        state.turn == 1 and state.phase == TRANSFER,
        state.closed_this_turn,
        min(1.0, state.turn / state.game.max_turns),
    )
    return obs


def _rush_static() -> list[np.ndarray]:
    """Per observer: the fixed column features centre, near, far, arm of relative seat k."""
    tables = []
    for seat in range(4):
        table = np.zeros((9, 7), dtype=np.float32)
        table[0, 0] = 1.0
        for stand in range(1, 9):
            table[stand, 1 if stand % 2 else 2] = 1.0
            table[stand, 3 + ((stand - 1) // 2 - seat) % 4] = 1.0
        tables.append(_column_table(9, 4, table))
    return tables


_RUSH_COLUMNS = _rush_static()
_QUEUE_RANK = (1.0, 0.75, 0.5, 0.25)


def rush_observation(state, seat: int) -> np.ndarray:
    stands = state.stands
    obs = np.empty((9, HEIGHT, RUSH_CHANNELS), dtype=np.float32)
    obs[:, :, 0:4] = _REL4[seat][state.cells]
    heights = [len(column) for column in stands]
    obs[:, :, 4:6] = _RANGES[_shape_rows(heights, state.groups, state.capacities())]
    codes = [5 * s + (1 + (stands[s][-1] - seat) % 4 if h == HEIGHT else 0) for s, h in enumerate(heights)]
    if heights[0] == HEIGHT:  # the centre belongs to the queue head, not its top colour
        codes[0] = 1 + (state.queue[0] - seat) % 4
    obs[:, :, 6:18] = _RUSH_COLUMNS[seat][codes][:, None, :]
    flags = [0.0] * 8
    for rank, queued in enumerate(state.queue):
        flags[(queued - seat) % 4] = _QUEUE_RANK[rank]
    flags[4] = state.current_player == seat
    flags[5] = state.phase == PLACE
    flags[6] = state.game.mode == "teams"
    flags[7] = min(1.0, state.turn / state.game.max_turns)
    obs[:, :, 18:26] = flags
    return obs
