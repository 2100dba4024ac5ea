"""Seat-relative observation tensors ``(stands, 11 levels, channels)``, float32 in [0, 1].

Level 0 is the bottom block. Colours are relative: channel "relative seat k" means the
colour of seat ``(observer + k) % players`` (k = 0: the observer's own colour). The channel
lists are documented in ``highrise_heist_v0`` and ``golden_rush_v0``.

Every cell's channels, except the turn fraction (and Golden Rush's queue ranks), depend only
on the cell's colour, on where the level lies in its stand (in the top group, in the room
left below the stand's limit, or neither), on the stand and its owner, on the observer and
on a few flags of the position. So an observation is one row per cell taken from a
per-observer *feature table*: the level table turns each stand's key (see
:mod:`~sky_envs.games.highrise_heist.tables`) into the row bases of its 11 levels, the cell
colours are added, and one ``take`` builds the tensor. Row of the feature table::

    ((stand * (players + 1) + owner + 1) * 3 + where) * (players + 1) + colour + 1

with ``where`` 0 (neither), 1 (top group), 2 (room), owner and colour -1 for none.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sky_envs.games.highrise_heist.rules import HEIGHT, PLACE

HEIST_CHANNELS = 14
RUSH_CHANNELS = 26
_QUEUE_RANK = (1.0, 0.75, 0.5, 0.25)


def _relative_colours(players: int) -> list[np.ndarray]:
    """Per observer: table colour -> one-hot relative colour; index -1 (empty) -> zeros."""
    tables = []
    for seat in range(players):
        table = np.zeros((players + 1, players), dtype=np.float32)
        for colour in range(players):
            table[colour, (colour - seat) % players] = 1.0
        tables.append(table)
    return tables


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


def _heist_columns(seat: int) -> np.ndarray:
    """Row ``3 * s + code``: golden flag, closed flag, owner is me, owner is the opponent
    (the same for both observers: the code is already relative)."""
    static = np.zeros((10, 1), dtype=np.float32)
    static[0, 0] = 1.0  # the golden stand
    return _column_table(10, 2, static)


def _rush_columns(seat: int) -> np.ndarray:
    """Row ``5 * s + code``: centre, near, far, arm of relative seat k, closed, relative owner."""
    static = np.zeros((9, 7), dtype=np.float32)
    static[0, 0] = 1.0
    for stand in range(1, 9):
        static[stand, 1 if stand % 2 else 2] = 1.0
        static[stand, 3 + ((stand - 1) // 2 - seat) % 4] = 1.0
    return _column_table(9, 4, static)


# ---------------------------------------------------------------- tables
def level_table(stands: int, players: int) -> np.ndarray:
    """Stand key -> the feature-table row base (colour + 1 left out) of each of its levels.

    The key (see :mod:`~sky_envs.games.highrise_heist.tables`) holds the stand, its height,
    top group size, top colour or owner, and capacity bit; only a closed stand's owner
    shows. The stand's room runs from its height up to its limit (10, or 11 when the
    capacity bit is set), empty once the stand is at or above the limit.
    """
    s, h, g, top, cb, level = np.ix_(np.arange(stands), np.arange(HEIGHT + 1), np.arange(HEIGHT + 1),
                                     np.arange(players + 1), np.arange(2), np.arange(HEIGHT))
    owner = np.where(h == HEIGHT, top, 0)  # top colour + 1 is the owner + 1 once closed, else 0
    room_end = np.maximum(HEIGHT - 1 + cb, h)  # the limit, or h when the stand is at or above it
    where = np.where((h - g <= level) & (level < h), 1, np.where((h <= level) & (level < room_end), 2, 0))
    base = ((s * (players + 1) + owner) * 3 + where) * (players + 1) + 1
    return np.ascontiguousarray(base.reshape(-1, HEIGHT), dtype=np.intp)


def _cell_features(players: int, columns, seat: int) -> np.ndarray:
    """Feature-table rows of one observer without the position flags: colour one-hot,
    top-group and room flags, column features; see the module docstring for the row order."""
    relative = _relative_colours(players)[seat]
    column_table = columns(seat)
    stands = column_table.shape[0] // (players + 1)
    width = players + 2 + column_table.shape[1]
    rows = np.zeros((stands, players + 1, 3, players + 1, width), dtype=np.float32)
    for s in range(stands):
        for owner in range(-1, players):
            code = 0 if owner < 0 else 1 + (owner - seat) % players
            for where in range(3):
                for colour in range(-1, players):
                    row = rows[s, owner + 1, where, colour + 1]
                    row[:players] = relative[colour]
                    if where:
                        row[players + where - 1] = 1.0
                    row[players + 2:] = column_table[(players + 1) * s + code]
    return rows.reshape(-1, width)


def feature_tables(kind: str) -> np.ndarray:
    """``[observer, flags context, row, channel]`` for ``kind`` "heist", "ffa" or "teams".

    Highrise Heist context bits: 16 my decision, 8 placement phase, 4 turn 0, 2 the swap is
    open, 1 a stand closed this turn. Golden Rush: 2 my decision, 1 placement phase (the
    teams channel is constant per configuration). The turn fraction (and the queue ranks)
    are left 0 and written per observation.
    """
    if kind == "heist":
        players, columns, channels, contexts = 2, _heist_columns, HEIST_CHANNELS, 32
    else:
        players, columns, channels, contexts = 4, _rush_columns, RUSH_CHANNELS, 4
    tables = []
    for seat in range(players):
        cells = _cell_features(players, columns, seat)
        table = np.zeros((contexts, len(cells), channels), dtype=np.float32)
        table[:, :, :cells.shape[1]] = cells
        for context in range(contexts):
            if kind == "heist":  # channels 8..12, in the order of the context bits
                table[context, :, 8:13] = [(context >> bit) & 1 for bit in (4, 3, 2, 1, 0)]
            else:  # channels 22, 23, 24 (18..21 queue ranks, 25 turn fraction)
                table[context, :, 22:25] = [(context >> 1) & 1, context & 1, kind == "teams"]
        tables.append(table)
    return np.stack(tables)


# ---------------------------------------------------------------- observations
def heist_observation(state, seat: int) -> np.ndarray:
    tables = state.game.tables
    rows = state.keys if state.cap < HEIGHT else state.keys + 1  # global cap: every stand's bit
    codes = tables.levels.take(rows, 0)
    codes += state.cells  # colour + 1 is the last digit of a feature row; empty cells hold -1
    turn, place = state.turn, state.phase == PLACE
    context = ((state.current_player == seat) << 4 | place << 3 | (turn == 0) << 2
               | (turn == 1 and not place) << 1 | state.closed_this_turn)
    obs = tables.features[seat][context].take(codes, 0)
    fraction = turn / state.game.max_turns
    obs[..., 13] = fraction if fraction < 1.0 else 1.0
    return obs


@lru_cache(maxsize=None)  # 4 observers x 64 non-empty queues at most
def _queue_ranks(seat: int, queue: tuple[int, ...]) -> np.ndarray:
    """Channels 18..21: the queue rank (1, 0.75, 0.5, 0.25) of each relative seat, 0 if absent."""
    ranks = np.zeros(4, dtype=np.float32)
    for rank, queued in enumerate(queue):
        ranks[(queued - seat) % 4] = _QUEUE_RANK[rank]
    ranks.setflags(write=False)
    return ranks


def rush_observation(state, seat: int) -> np.ndarray:
    tables = state.game.tables
    codes = tables.levels.take(state.keys, 0)
    codes += state.cells
    context = (state.current_player == seat) << 1 | (state.phase == PLACE)
    obs = tables.features[seat][context].take(codes, 0)
    if state.queue:
        obs[..., 18:22] = _queue_ranks(seat, tuple(state.queue))
    fraction = state.turn / state.game.max_turns
    obs[..., 25] = fraction if fraction < 1.0 else 1.0
    return obs
