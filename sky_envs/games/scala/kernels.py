"""Scala's per-move work compiled with numba: move generation and the observation planes.

Move generation is the whole cost of a Scala step in Python (a chain-of-jumps search for
every stone, every move), and the benchmark showed compiling it pays several times over.
The kernels take the 88-bit colour masks split in two 44-bit halves (so that each fits a
signed 64-bit integer) and work on the cell arrays of ``board.py``.
Compiled code is cached on disk (``cache=True``): only the first import on a machine
compiles.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from sky_envs.games.scala.board import (
    ADJ,
    DEFENDED_GOAL,
    GRID_INDEX,
    JUMP_LANDINGS,
    JUMP_OVERS,
    NEIGHBOURS,
    NUM_CELLS,
    TARGET_GOAL,
)

HALF_BITS = 44
HALF = (1 << HALF_BITS) - 1
DEFENDED = np.array(DEFENDED_GOAL, dtype=np.int64)
TARGETS = np.array(TARGET_GOAL, dtype=np.int64)
#: per cell, the flat index of its channel-1 entry in the (14, 11, 5) observation
OWN_SLOT = (GRID_INDEX * 5 + 1).astype(np.int64)


@njit(cache=True)
def _unpack(lo, hi, out):
    for i in range(HALF_BITS):
        out[i] = (lo >> i) & 1
        out[HALF_BITS + i] = (hi >> i) & 1


#: per cell, its 8-neighbours as a pair of halves
ADJ_HALVES = np.array([(a & HALF, a >> HALF_BITS) for a in ADJ], dtype=np.int64)
#: the index of a single set bit ``b`` is ``_DEBRUIJN_INDEX[(b * _DEBRUIJN mod 2**64) >> 58]``
_DEBRUIJN = 0x022FDD63CC95386D
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((1 << _i) * _DEBRUIJN & (2**64 - 1)) >> 58] = _i


@njit(cache=True, inline="always")
def _index_of(bit):
    """The index of the single set bit of ``bit``."""
    return _DEBRUIJN_INDEX[np.uint64(np.uint64(bit) * np.uint64(_DEBRUIJN)) >> np.uint64(58)]


@njit(cache=True, inline="always")
def _has(lo, hi, cell):
    if cell < HALF_BITS:
        return (lo >> cell) & 1
    return (hi >> (cell - HALF_BITS)) & 1


#: the bits of a cell in ``legal_moves``' table of cells (the cell ``NUM_CELLS``, off the
#: board, has none): a stone on it; empty and in no component found yet; empty (the goal the
#: mover defends counts as occupied by neither and empty by no one: it is never a landing)
_STONE, _FREE, _EMPTY = 1, 2, 4


@njit(cache=True, inline="always")
def _jumps(cells, cell, onto):
    """Bit k: the jump from ``cell`` in direction k goes over a stone onto a cell with the
    bit ``onto`` (``_FREE`` or ``_EMPTY``) in ``cells``; branch-free over the eight directions."""
    shift = 2 if onto == _EMPTY else 1
    jumps = 0
    for k in range(8):
        jumps |= (cells[JUMP_OVERS[cell, k]] & (cells[JUMP_LANDINGS[cell, k]] >> shift) & 1) << k
    return jumps


@njit(cache=True)
def _open_cells(occ_lo, occ_hi, colour):
    """The cells a stone of ``colour`` may end on: the empty ones but the goal it defends."""
    empty_lo = ~occ_lo & HALF
    empty_hi = ~occ_hi & HALF
    d = DEFENDED[colour]
    if d < HALF_BITS:
        empty_lo &= ~(1 << d)
    else:
        empty_hi &= ~(1 << (d - HALF_BITS))
    return empty_lo, empty_hi


@njit(cache=True)
def _can_step(own_lo, own_hi, occ_lo, occ_hi, colour):
    """Whether a stone of ``own`` (``colour``'s) has an open neighbour (:func:`_open_cells`):
    then ``colour`` has a move before the split rule, a step there (:func:`legal_moves` lists
    such steps among its moves)."""
    empty_lo, empty_hi = _open_cells(occ_lo, occ_hi, colour)
    for half in range(2):
        stones = own_lo if half == 0 else own_hi
        while stones:
            low = stones & -stones
            stones ^= low
            start = _index_of(low) + half * HALF_BITS
            if (ADJ_HALVES[start, 0] & empty_lo) != 0 or (ADJ_HALVES[start, 1] & empty_hi) != 0:
                return True
    return False


@njit(cache=True)
def move_work():
    """The work arrays of :func:`legal_moves` (its table of cells, the components found and
    its list of cells to visit), made once by a caller that generates many times."""
    return np.empty((5, NUM_CELLS + 1), dtype=np.int64)


@njit(cache=True)
def legal_moves(own_lo, own_hi, occ_lo, occ_hi, colour, mask, actions, work):
    """Fill ``mask`` (bool, 88 * 88, all False on entry) with the moves of the stones ``own``
    (start * 88 + end), before the split rule, and ``actions`` with the same moves in
    ascending order; return how many there are. ``work``: a :func:`move_work` array, overwritten.

    A stone moves to an empty neighbour or to the end of a chain of jumps. The empty cells
    fall into components of the undirected "jump graph" (a jump goes over a stone to the
    empty cell right behind it, and can be made back), and a stone reaches exactly the
    components of its first landings. A jump moves two rows or columns at a time, so the
    cells a chain from a stone visits differ from it by even offsets, while the jumps over
    the stone itself join its neighbours: the components can be shared by all the stones.
    Sets of cells are pairs of 44-bit halves (``lo``, ``hi``); the search for components
    reads a table of the cells (``_STONE``, ``_FREE``, ``_EMPTY`` bits), the eight directions
    of a cell at once without a branch (``_jumps``: which way a jump goes is a coin toss to
    the processor's branch predictor).
    """
    empty_lo, empty_hi = _open_cells(occ_lo, occ_hi, colour)
    cells, component_of, comp_lo, comp_hi, todo = work[0], work[1], work[2], work[3], work[4]
    for i in range(HALF_BITS):
        cells[i] = ((occ_lo >> i) & 1) | ((empty_lo >> i) & 1) * (_FREE | _EMPTY)
        cells[HALF_BITS + i] = ((occ_hi >> i) & 1) | ((empty_hi >> i) & 1) * (_FREE | _EMPTY)
    cells[NUM_CELLS] = 0                                         # off the board: no bit
    comps = 0
    count = 0
    for half in range(2):
        stones = own_lo if half == 0 else own_hi
        while stones:
            low = stones & -stones
            stones ^= low
            start = _index_of(low) + half * HALF_BITS
            r_lo = ADJ_HALVES[start, 0] & empty_lo
            r_hi = ADJ_HALVES[start, 1] & empty_hi
            jumps = _jumps(cells, start, _EMPTY)
            while jumps:
                direction = jumps & -jumps
                jumps ^= direction
                land = JUMP_LANDINGS[start, _index_of(direction)]
                if cells[land] & _FREE:                 # a new component: flood it
                    c_lo = c_hi = 0
                    todo[0] = land
                    cells[land] ^= _FREE
                    end = 1
                    i = 0
                    while i < end:
                        cell = todo[i]
                        i += 1
                        component_of[cell] = comps
                        if cell < HALF_BITS:
                            c_lo |= 1 << cell
                        else:
                            c_hi |= 1 << (cell - HALF_BITS)
                        onward = _jumps(cells, cell, _FREE)
                        while onward:
                            step = onward & -onward
                            onward ^= step
                            nxt = JUMP_LANDINGS[cell, _index_of(step)]
                            cells[nxt] ^= _FREE
                            todo[end] = nxt
                            end += 1
                    comp_lo[comps] = c_lo
                    comp_hi[comps] = c_hi
                    comps += 1
                c = component_of[land]
                r_lo |= comp_lo[c]
                r_hi |= comp_hi[c]
            row = start * NUM_CELLS
            while r_lo:
                low = r_lo & -r_lo
                r_lo ^= low
                a = row + _index_of(low)
                mask[a] = True
                actions[count] = a
                count += 1
            while r_hi:
                low = r_hi & -r_hi
                r_hi ^= low
                a = row + HALF_BITS + _index_of(low)
                mask[a] = True
                actions[count] = a
                count += 1
    return count


@njit(cache=True)
def label_groups(lo, hi, out):
    """Write the 8-connected groups of the stones ``lo | hi << 44`` into ``out`` as pairs of
    halves (``out[2 k]``, ``out[2 k + 1]``), ordered by their lowest cell; return how many."""
    occ = np.empty(NUM_CELLS, dtype=np.uint8)
    _unpack(lo, hi, occ)
    todo = np.empty(NUM_CELLS, dtype=np.int64)
    count = 0
    for seed in range(NUM_CELLS):
        if occ[seed] != 1:
            continue
        occ[seed] = 2                     # reached
        todo[0] = seed
        reached, end = 0, 1
        group_lo = group_hi = 0
        while reached < end:
            cell = todo[reached]
            reached += 1
            if cell < HALF_BITS:
                group_lo |= 1 << cell
            else:
                group_hi |= 1 << (cell - HALF_BITS)
            for k in range(8):
                nxt = NEIGHBOURS[cell, k]
                if nxt < 0:
                    break
                if occ[nxt] == 1:
                    occ[nxt] = 2
                    todo[end] = nxt
                    end += 1
        out[2 * count] = group_lo
        out[2 * count + 1] = group_hi
        count += 1
    return count


#: how settling the groups after a move ends (``rules.py`` names them)
SETTLED, NOTHING_LEFT, TIE, LONE_COLOUR = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _count(lo, hi):
    """The number of cells in ``lo | hi << 44``."""
    n = 0
    while lo:
        lo &= lo - 1
        n += 1
    while hi:
        hi &= hi - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _toggle(lo, hi, cell):
    if cell < HALF_BITS:
        return lo ^ (1 << cell), hi
    return lo, hi ^ (1 << (cell - HALF_BITS))


@njit(cache=True)
def _ring_table():
    """``table[cell, ring]``: whether the occupied neighbours of ``cell`` (bit k of ``ring``:
    ``NEIGHBOURS[cell, k]``) are one non-empty 8-connected group among themselves."""
    table = np.zeros((NUM_CELLS, 256), dtype=np.bool_)
    cells = np.empty(8, dtype=np.int64)
    for cell in range(NUM_CELLS):
        for ring in range(1, 256):
            size = 0
            valid = True
            for k in range(8):
                if ring >> k & 1:
                    if NEIGHBOURS[cell, k] < 0:
                        valid = False
                        break
                    cells[size] = NEIGHBOURS[cell, k]
                    size += 1
            if not valid:
                continue
            reached = 1                  # bit i: cells[i] reached from cells[0]
            grew = True
            while grew:
                grew = False
                for i in range(size):
                    if reached >> i & 1:
                        continue
                    for j in range(size):
                        if reached >> j & 1 and _has(ADJ_HALVES[cells[j], 0], ADJ_HALVES[cells[j], 1], cells[i]):
                            reached |= 1 << i
                            grew = True
                            break
            table[cell, ring] = reached == (1 << size) - 1
    return table


#: ``RING_LINKED[cell, ring]``, see ``_ring_table``
RING_LINKED = _ring_table()


@njit(cache=True)
def ring_linked(cell, occ_lo, occ_hi):
    """Whether the stones ``occ`` around ``cell`` are one non-empty group among themselves:
    then the stones stay connected without ``cell`` if they were with it."""
    ring = 0
    for k in range(8):
        nb = NEIGHBOURS[cell, k]
        if nb < 0:
            break
        if _has(occ_lo, occ_hi, nb):
            ring |= 1 << k
    return RING_LINKED[cell, ring]


@njit(cache=True)
def settle_move(blue_lo, blue_hi, red_lo, red_hi, colour, start, end, mover_loses, connected):
    """Move the stone of ``colour`` from ``start`` to ``end`` and apply rules 1-4 of the seed
    text; return ``(outcome, blue_lo, blue_hi, red_lo, red_hi)``. ``connected``: the stones
    are known to be one group before the move (as at the start of every turn of a game),
    which lets most moves skip the search for groups.

    With one group on the board the outcome is ``SETTLED`` and nothing is removed. Otherwise
    the mixed groups are compared: none left is ``NOTHING_LEFT`` (nothing kept), two or more
    tied for biggest is ``TIE`` (all of them kept), one biggest is ``SETTLED`` (it is kept).
    Under ``split_rule="illegal"`` (``mover_loses`` false) a settled split keeps the moved
    stone's group instead, and is ``LONE_COLOUR`` when that group is one-coloured: any
    outcome but ``SETTLED`` then means the move is illegal.
    """
    if colour == 0:
        blue_lo, blue_hi = _toggle(blue_lo, blue_hi, start)
        blue_lo, blue_hi = _toggle(blue_lo, blue_hi, end)
    else:
        red_lo, red_hi = _toggle(red_lo, red_hi, start)
        red_lo, red_hi = _toggle(red_lo, red_hi, end)
    occ_lo, occ_hi = blue_lo | red_lo, blue_hi | red_hi
    if connected and ((ADJ_HALVES[end, 0] & occ_lo) != 0 or (ADJ_HALVES[end, 1] & occ_hi) != 0):
        # the stones around the emptied start still linked among themselves keep the rest
        # one group, and the moved stone touches it
        rest_lo, rest_hi = _toggle(occ_lo, occ_hi, end)
        if ring_linked(start, rest_lo, rest_hi):
            return SETTLED, blue_lo, blue_hi, red_lo, red_hi
    groups = np.empty(2 * NUM_CELLS, dtype=np.int64)
    count = label_groups(blue_lo | red_lo, blue_hi | red_hi, groups)
    if count == 1:
        return SETTLED, blue_lo, blue_hi, red_lo, red_hi
    biggest = tied = 0
    keep_lo = keep_hi = 0
    moved_lo = moved_hi = 0
    moved_mixed = False
    for k in range(count):
        g_lo, g_hi = groups[2 * k], groups[2 * k + 1]
        mixed = ((g_lo & blue_lo) != 0 or (g_hi & blue_hi) != 0) and ((g_lo & red_lo) != 0 or (g_hi & red_hi) != 0)
        if _has(g_lo, g_hi, end):
            moved_lo, moved_hi, moved_mixed = g_lo, g_hi, mixed
        if not mixed:
            continue
        size = _count(g_lo, g_hi)
        if size > biggest:
            biggest, tied, keep_lo, keep_hi = size, 1, g_lo, g_hi
        elif size == biggest:
            tied += 1
            keep_lo |= g_lo
            keep_hi |= g_hi
    if biggest == 0:
        outcome = NOTHING_LEFT
    elif tied > 1:
        outcome = TIE
    else:
        outcome = SETTLED
        if not mover_loses:
            keep_lo, keep_hi = moved_lo, moved_hi
            if not moved_mixed:
                outcome = LONE_COLOUR
    return outcome, blue_lo & keep_lo, blue_hi & keep_hi, red_lo & keep_lo, red_hi & keep_hi


@njit(cache=True)
def play(blue_lo, blue_hi, red_lo, red_hi, colour, start, end, mover_loses, connected, generate, mask, actions,
         work):
    """``settle_move``, then, when the move settled and ``generate`` is true, the other
    colour's moves as ``legal_moves`` writes them (``work``: its :func:`move_work` array). Returns ``settle_move``'s tuple and the
    number of moves (-1 when none were generated): a whole Scala ply in one call."""
    outcome, blue_lo, blue_hi, red_lo, red_hi = settle_move(
        blue_lo, blue_hi, red_lo, red_hi, colour, start, end, mover_loses, connected)
    count = -1
    if outcome == SETTLED and generate:
        occ_lo, occ_hi = blue_lo | red_lo, blue_hi | red_hi
        if colour == 0:
            count = legal_moves(red_lo, red_hi, occ_lo, occ_hi, 1, mask, actions, work)
        else:
            count = legal_moves(blue_lo, blue_hi, occ_lo, occ_hi, 0, mask, actions, work)
    return outcome, blue_lo, blue_hi, red_lo, red_hi, count


@njit(cache=True)
def drop_split_moves(blue_lo, blue_hi, red_lo, red_hi, colour, connected, mask, actions, count, groups):
    """Under ``split_rule="illegal"``: clear in ``mask`` the moves of ``actions[:count]``
    (ascending, as ``legal_moves`` lists them) that break the split rule; return how many
    stay. ``rules.split_legal_targets`` compiled: when the stones without the moving one
    hold together, a move is legal where its end touches them; otherwise each move is
    settled."""
    occ_lo, occ_hi = blue_lo | red_lo, blue_hi | red_hi
    kept = 0
    first = 0
    while first < count:
        start = actions[first] // NUM_CELLS
        stop = first
        while stop < count and actions[stop] // NUM_CELLS == start:
            stop += 1
        rest_lo, rest_hi = _toggle(occ_lo, occ_hi, start)
        one_group = (connected and ring_linked(start, rest_lo, rest_hi)) or label_groups(rest_lo, rest_hi, groups) == 1
        for k in range(first, stop):
            end = actions[k] - start * NUM_CELLS
            if one_group:
                legal = (ADJ_HALVES[end, 0] & rest_lo) != 0 or (ADJ_HALVES[end, 1] & rest_hi) != 0
            else:
                legal = settle_move(blue_lo, blue_hi, red_lo, red_hi, colour, start, end, False, False)[0] == SETTLED
            if legal:
                kept += 1
            else:
                mask[actions[k]] = False
        first = stop
    return kept


@njit(cache=True)
def play_ply(stones, colour, action, connected, plies, mover_loses, max_turns, mask, scratch, groups, work,
             write_moves=True):
    """One ply of one game, ``ScalaState.apply_unchecked`` over arrays (a slot of the batched
    engine, a move the greedy player judges): move, settle the split rule, test the ends in
    the readable engine's order, and, while the game goes on, write the other colour's moves
    into ``mask`` (whose rows of the mover's stones are cleared first: no other row holds a
    legal move). ``stones`` is updated in place. With ``write_moves=False`` (a caller that
    wants the outcome only, and reads nothing of ``mask``) the other colour's moves are not
    listed where the mover-loses split rule holds and one of its stones can step: it then
    has a move, and the game goes on. ``scratch``, ``groups`` and ``work`` are work arrays (a
    move list of 88 * 88, a list of groups of 2 * 88, a :func:`move_work` array).

    Returns ``(winner, over)``: ``over`` 0 while the game goes on, 1 when it ended by its rules
    (``winner`` the seat that won), 2 at the ``max_turns`` cut."""
    own_lo, own_hi = (stones[0], stones[1]) if colour == 0 else (stones[2], stones[3])
    for half in range(2):
        bits = own_lo if half == 0 else own_hi
        while bits:
            low = bits & -bits
            bits ^= low
            row = (_index_of(low) + half * HALF_BITS) * NUM_CELLS
            mask[row:row + NUM_CELLS] = False
    start, end = action // NUM_CELLS, action % NUM_CELLS
    outcome, blue_lo, blue_hi, red_lo, red_hi = settle_move(
        stones[0], stones[1], stones[2], stones[3], colour, start, end, mover_loses, connected)
    stones[0], stones[1], stones[2], stones[3] = blue_lo, blue_hi, red_lo, red_hi
    if outcome != SETTLED:                      # rules 2 and 4 (only reachable with mover_loses)
        return 1 - colour, 1
    on_goal = _has(blue_lo, blue_hi, end) if colour == 0 else _has(red_lo, red_hi, end)
    if end == TARGETS[colour] and on_goal:                # the moved stone stayed on its goal
        return colour, 1
    if plies >= max_turns:
        return -1, 2
    other = 1 - colour
    occ_lo, occ_hi = blue_lo | red_lo, blue_hi | red_hi
    if not write_moves and mover_loses and _can_step(blue_lo if other == 0 else red_lo,
                                                     blue_hi if other == 0 else red_hi, occ_lo, occ_hi, other):
        return -1, 0
    if other == 0:
        count = legal_moves(blue_lo, blue_hi, occ_lo, occ_hi, other, mask, scratch, work)
    else:
        count = legal_moves(red_lo, red_hi, occ_lo, occ_hi, other, mask, scratch, work)
    if count and not mover_loses:
        count = drop_split_moves(blue_lo, blue_hi, red_lo, red_hi, other, True, mask, scratch, count, groups)
    if count == 0:                              # the other colour has no legal move
        return colour, 1
    return -1, 0


@njit(cache=True)
def observe_stones(base, mine_lo, mine_hi, theirs_lo, theirs_hi):
    """A copy of the observation ``base`` (the seat's fixed channels) with channel 1 (the
    observer's stones) and 2 (the opponent's) set: one call, the copy included."""
    out = base.copy()
    flat = out.reshape(-1)
    for i in range(HALF_BITS):
        flat[OWN_SLOT[i]] = (mine_lo >> i) & 1
        flat[OWN_SLOT[i] + 1] = (theirs_lo >> i) & 1
        flat[OWN_SLOT[HALF_BITS + i]] = (mine_hi >> i) & 1
        flat[OWN_SLOT[HALF_BITS + i] + 1] = (theirs_hi >> i) & 1
    return out


class _Scratch(threading.local):
    """The kernels' output buffer and move generator's work arrays, one per thread (the
    results are copied out of them)."""

    def __init__(self):
        self.buffer = np.empty(NUM_CELLS * NUM_CELLS, dtype=np.int64)
        self.work = move_work()


_SCRATCH = _Scratch()


def moves_of(stones: int, occ: int, colour: int) -> tuple[np.ndarray, np.ndarray]:
    """The moves of the stones ``stones`` of ``colour`` on the board ``occ`` before the split
    rule: their mask (bool, 88 * 88) and their ascending list (int64)."""
    mask = np.zeros(NUM_CELLS * NUM_CELLS, dtype=bool)
    scratch = _SCRATCH.buffer
    count = legal_moves(stones & HALF, stones >> HALF_BITS, occ & HALF, occ >> HALF_BITS, colour, mask, scratch,
                        _SCRATCH.work)
    return mask, scratch[:count].copy()


def after_move(blue: int, red: int, colour: int, start: int, end: int, mover_loses: bool) -> tuple[int, int, int]:
    """``settle_move`` on 88-bit masks: ``(blue, red, outcome)``."""
    outcome, blue_lo, blue_hi, red_lo, red_hi = settle_move(*halves_of(blue, red), colour, start, end, mover_loses,
                                                            False)
    return blue_lo | blue_hi << HALF_BITS, red_lo | red_hi << HALF_BITS, outcome


def halves_of(blue: int, red: int) -> tuple[int, int, int, int]:
    """``(blue_lo, blue_hi, red_lo, red_hi)``: the colour masks as the kernels take them."""
    return blue & HALF, blue >> HALF_BITS, red & HALF, red >> HALF_BITS


def play_move(halves: tuple[int, int, int, int], colour: int, start: int, end: int, mover_loses: bool,
              connected: bool, generate: bool) -> tuple[tuple[int, int, int, int], int, np.ndarray, np.ndarray | None]:
    """``play`` on the colour masks as ``halves_of`` splits them: ``(halves, outcome, mask,
    actions)``, with the other colour's moves (mask and ascending list, before the split rule)
    when they were generated, else an all-False mask and None."""
    mask = np.zeros(NUM_CELLS * NUM_CELLS, dtype=bool)
    scratch = _SCRATCH.buffer
    blue_lo, blue_hi, red_lo, red_hi = halves
    outcome, blue_lo, blue_hi, red_lo, red_hi, count = play(
        blue_lo, blue_hi, red_lo, red_hi, colour, start, end, mover_loses, connected, generate, mask, scratch,
        _SCRATCH.work)
    return (blue_lo, blue_hi, red_lo, red_hi), outcome, mask, scratch[:count].copy() if count >= 0 else None


def components(occ: int) -> list[int]:
    """The 8-connected groups of the stones in ``occ``, as masks, ordered by their lowest cell."""
    scratch = _SCRATCH.buffer
    count = label_groups(occ & HALF, occ >> HALF_BITS, scratch)
    halves = scratch[:2 * count].tolist()
    return [halves[k] | halves[k + 1] << HALF_BITS for k in range(0, 2 * count, 2)]
