"""Lookup tables behind the legal masks and observations: each is a few numpy ``take``s.

Why tables: every decision needs a legal mask over the whole layout (267 or 217 actions)
and an observation tensor. Testing each transfer and placement, or filling the tensor
stand by stand, costs tens of microseconds in Python, several times the rest of a step.
So every stand carries a *key* that names everything the rules and the observation look
at, and a few codes derived from it, kept current by ``StackState._recode`` whenever the
stand changes; masks and observations are read from tables indexed by those codes, built
once per configuration and shared by every game of it (``game.tables``).

With ``h`` the stand's height, ``g`` its top group size, ``t`` its top colour while it is
open (-1 when empty) and its owner once closed, ``cb`` its capacity bit (1 when the stand
may hold 11 blocks now, 0 when it holds 10, see ``StackState._capacity_bit``), ``cs`` the
number of capacity bits a configuration tells apart (2 in Golden Rush, 1 in Highrise
Heist, whose caps are global) and ``P`` the number of seats, stand ``s`` has

* the key ``(((s * 12 + h) * 12 + g) * (P + 1) + t + 1) * 2 + cb``, which is also its row
  of the observation's level table (:mod:`~sky_envs.games.highrise_heist.observation`);
* transfer source row ``s * src_stride + t * 10 + g - 1`` if the stand may give its
  top group (it is open and not empty, so 1 <= g <= h <= 10), else
  ``s * src_stride + src_stride - 1``;
* transfer target column ``s * tgt_stride + k * cs + cb`` if it is open, with ``k`` 0
  for an empty stand and ``t * 10 + h`` otherwise, else ``s * tgt_stride + tgt_stride - 1``;
* placement id ``s * place_stride + h * cs + cb`` (``place_stride = 12 * cs``).

The last three are looked up from the key (``source_of``, ``target_of``, ``place_of``).
The stand is part of every code so that the tables themselves rule out a transfer from a
stand onto itself and tell single placements (the diagonal) from two-stand ones. The
mask tables are kept narrow (no impossible codes) because a mask copies whole rows.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sky_envs.games.highrise_heist.layout import PAIR_COUNTS, ActionLayout
from sky_envs.games.highrise_heist.observation import feature_tables, level_table
from sky_envs.games.highrise_heist.rules import HEIGHT, PLACE_CLASSES

OPEN = HEIGHT - 1  # the heights (and top group sizes) 1..10 of an open, non-empty stand
UNUSED = 3  # the 4th entry of every placement cell: always False (what other actions read)


class StandTables:
    """Everything one configuration's masks and observations are read from."""

    def __init__(self, layout: ActionLayout, players: int, cap_states: int, transfer_fits,
                 placement_contexts, features: np.ndarray):
        S = layout.num_stands
        self.size = layout.size
        self.cap_states = cap_states
        self.src_stride = players * OPEN + 1
        self.tgt_stride = (players * OPEN + 1) * cap_states + 1
        self.place_stride = (HEIGHT + 1) * cap_states
        self.owner_codes = players + 1
        self.source_of, self.target_of, self.place_of = _codes_by_key(self, S)
        built = {}  # movers under the same rule (every Golden Rush seat) share one table
        for fits in transfer_fits:
            if fits not in built:
                built[fits] = _transfer_table(self, layout, players, fits)
        self.transfer = [built[fits] for fits in transfer_fits]  # per mover
        # rows taken from a transfer table: one per stand, then the rows that make the
        # actions after the S * S transfers read as False, except "no transfer" (and the swap)
        self.false_row = S * self.src_stride
        self.pass_row, self.swap_row = self.false_row + 1, self.false_row + 2
        self.source_rows = np.full(-(-layout.size // S), self.false_row, dtype=np.intp)
        self.source_rows[layout.no_transfer // S] = self.pass_row
        self.swap_slot = layout.swap // S if layout.swap >= 0 else -1
        self.placement = [_placement_table(self, S, *context) for context in placement_contexts]
        self.place_flat = _placement_positions(layout)
        # placement masks by context and placement classes (see StackState._placement)
        self.place_key_span = PLACE_CLASSES ** S
        self.placement_masks: dict[int, tuple[np.ndarray, bool]] = {}
        self.levels = level_table(S, players)
        # per observer, per flags context: a 2-D table (a list lookup is cheaper than
        # numpy indexing ``features[seat, context]`` at every observation)
        self.features = [list(per_observer) for per_observer in features]


def _codes_by_key(tables: StandTables, S: int) -> tuple[list[int], list[int], list[int]]:
    """Per stand key: its transfer source row, transfer target column and placement id.

    Keys no position has (say, a top colour on an empty stand) get harmless codes."""
    cs = tables.cap_states
    s, h, g, t, cb = np.ix_(np.arange(S), np.arange(HEIGHT + 1), np.arange(HEIGHT + 1),
                            np.arange(-1, tables.owner_codes - 1), np.arange(2))
    cb = cb % cs  # Highrise Heist keys always hold cb = 0
    gives = (0 < h) & (h < HEIGHT) & (t >= 0) & (1 <= g) & (g <= h)
    source = s * tables.src_stride + np.where(gives, t * OPEN + g - 1, tables.src_stride - 1)
    k = np.where(h > 0, np.maximum(t, 0) * OPEN + h, 0)
    target = s * tables.tgt_stride + np.where(h < HEIGHT, k * cs + cb, tables.tgt_stride - 1)
    place = s * tables.place_stride + h * cs + cb
    shape = (S, HEIGHT + 1, HEIGHT + 1, tables.owner_codes, 2)
    return tuple(np.broadcast_to(codes, shape).ravel().tolist() for codes in (source, target, place))


def _transfer_table(tables: StandTables, layout: ActionLayout, players: int, fits) -> np.ndarray:
    """``[source row, target column]`` -> the transfer is legal; see the module docstring.

    ``fits(colour, size, height, cb)`` (broadcasting arrays) says whether a group of
    ``size`` blocks of ``colour`` may go onto an open stand of ``height`` by the height rules.
    """
    S, cs = layout.num_stands, tables.cap_states
    src = np.arange(tables.src_stride)
    colour, size = src // OPEN, src % OPEN + 1
    gives = src < tables.src_stride - 1
    tgt = np.arange(tables.tgt_stride)
    cb, k = tgt % cs, tgt // cs
    top, height = np.where(k > 0, (k - 1) // OPEN, -1), np.where(k > 0, (k - 1) % OPEN + 1, 0)
    takes = tgt < tables.tgt_stride - 1
    colour, size, gives = colour[:, None], size[:, None], gives[:, None]
    legal = gives & takes & ((top == -1) | (top == colour)) & fits(colour, size, height, cb)
    grid = np.empty((S, len(src), S, len(tgt)), dtype=bool)
    grid[:] = legal[None, :, None, :]
    stands = np.arange(S)
    grid[stands, :, stands, :] = False  # a group never goes back onto its own stand
    grid = grid.reshape(S * len(src), S * len(tgt))
    extra = np.zeros((3, S * len(tgt)), dtype=bool)  # false_row, pass_row, swap_row
    block = len(tgt)
    column = layout.no_transfer % S
    extra[1, column * block:(column + 1) * block] = True
    if layout.swap >= 0:
        column = layout.swap % S
        extra[2, column * block:(column + 1) * block] = True
    return np.concatenate([grid, extra])


def _placement_table(tables: StandTables, S: int, caps: tuple[int, int], most: int,
                     one_closure: bool) -> np.ndarray:
    """``[id of s, id of t, j]`` -> legal: on the diagonal s == t, placing j + 1 blocks on s;
    above it (s < t), the two-stand placement PAIR_COUNTS[j]; entry 3 is always False.

    ``caps[cb]``: how high a placement may build a stand with capacity bit cb; ``most``:
    blocks allowed in total; ``one_closure``: a placement may not close two stands.
    """
    cs = tables.cap_states
    ids = np.arange(S * tables.place_stride)
    stand, height, cb = ids // tables.place_stride, (ids % tables.place_stride) // cs, ids % cs
    room = np.clip(np.asarray(caps)[cb] - height, 0, most)
    same = stand[:, None] == stand[None, :]
    before = stand[:, None] < stand[None, :]
    table = np.zeros((len(ids), len(ids), 4), dtype=bool)
    for count in (1, 2, 3):
        table[:, :, count - 1] = same & (count <= room)[:, None]
    for j, (a, b) in enumerate(PAIR_COUNTS):
        legal = before & (a <= room)[:, None] & (b <= room)[None, :] & (a + b <= most)
        if one_closure:
            legal &= ~((height + a == HEIGHT)[:, None] & (height + b == HEIGHT)[None, :])
        table[:, :, j] |= legal
    return table


def _placement_positions(layout: ActionLayout) -> np.ndarray:
    """Action -> its entry in the flattened ``(S, S, 4)`` cells taken from a placement table."""
    S = layout.num_stands
    flat = np.full(layout.size, UNUSED, dtype=np.intp)
    for offset, parts in enumerate(layout.placements):
        if len(parts) == 1:
            (s, count), = parts
            flat[layout.single + offset] = (s * S + s) * 4 + count - 1
        else:
            (s, a), (t, b) = parts
            flat[layout.single + offset] = (s * S + t) * 4 + PAIR_COUNTS.index((a, b))
    return flat


# ---------------------------------------------------------------- the two configurations
def _heist_fits(mover: int):
    """A group of the mover's colour may overflow any open stand; others build it to 10."""
    return lambda colour, size, height, cb: (colour == mover) | (height + size <= HEIGHT - 1)


def _rush_fits(colour, size, height, cb):
    """Nothing may exceed the target's capacity: 10, or 11 when its capacity bit is set."""
    return height + size <= HEIGHT - 1 + cb


@lru_cache(maxsize=None)
def heist_tables(num_stands: int) -> StandTables:
    """Placement contexts: index ``(most == 3) * 2 + (cap == 11)`` (the caps are global)."""
    contexts = [((cap, cap), most, True) for most in (1, 3) for cap in (HEIGHT - 1, HEIGHT)]
    return StandTables(ActionLayout(num_stands, swap=True), 2, 1, [_heist_fits(0), _heist_fits(1)],
                       contexts, feature_tables("heist"))


@lru_cache(maxsize=None)
def rush_tables(num_stands: int, teams: bool) -> StandTables:
    """One placement context: per-stand capacities 10 or 11, 3 blocks, several closures."""
    fits = [_rush_fits] * 4
    return StandTables(ActionLayout(num_stands, swap=False), 4, 2, fits, [((HEIGHT - 1, HEIGHT), 3, False)],
                       feature_tables("teams" if teams else "ffa"))
