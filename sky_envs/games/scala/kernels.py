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
)

HALF_BITS = 44
HALF = (1 << HALF_BITS) - 1
DEFENDED = np.array(DEFENDED_GOAL, dtype=np.int64)
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


@njit(cache=True)
def legal_moves(own_lo, own_hi, occ_lo, occ_hi, colour, mask, actions):
    """Fill ``mask`` (bool, 88 * 88, all False on entry) with the moves of the stones ``own``
    (start * 88 + end), before the split rule, and ``actions`` with the same moves in
    ascending order; return how many there are.

    A stone moves to an empty neighbour or to the end of a chain of jumps. The empty cells
    fall into components of the undirected "jump graph" (a jump goes over a stone to the
    empty cell right behind it, and can be made back), and a stone reaches exactly the
    components of its first landings. A jump moves two rows or columns at a time, so the
    cells a chain from a stone visits differ from it by even offsets, while the jumps over
    the stone itself join its neighbours: the components can be shared by all the stones.
    Sets of cells are pairs of 44-bit halves (``lo``, ``hi``) throughout.
    """
    empty_lo = ~occ_lo & HALF
    empty_hi = ~occ_hi & HALF
    d = DEFENDED[colour]
    if d < HALF_BITS:
        empty_lo &= ~(1 << d)
    else:
        empty_hi &= ~(1 << (d - HALF_BITS))
    free_lo, free_hi = empty_lo, empty_hi
    comp_lo = np.empty(NUM_CELLS, dtype=np.int64)
    comp_hi = np.empty(NUM_CELLS, dtype=np.int64)
    todo = np.empty(NUM_CELLS, dtype=np.int64)
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
            for k in range(8):
                land = JUMP_LANDINGS[start, k]
                if land < 0:
                    break
                if not (_has(occ_lo, occ_hi, JUMP_OVERS[start, k]) and _has(empty_lo, empty_hi, land)):
                    continue
                if _has(free_lo, free_hi, land):      # a new component: flood it
                    c_lo = c_hi = 0
                    todo[0] = land
                    end = 1
                    if land < HALF_BITS:
                        free_lo ^= 1 << land
                    else:
                        free_hi ^= 1 << (land - HALF_BITS)
                    i = 0
                    while i < end:
                        cell = todo[i]
                        i += 1
                        if cell < HALF_BITS:
                            c_lo |= 1 << cell
                        else:
                            c_hi |= 1 << (cell - HALF_BITS)
                        for j in range(8):
                            nxt = JUMP_LANDINGS[cell, j]
                            if nxt < 0:
                                break
                            if _has(occ_lo, occ_hi, JUMP_OVERS[cell, j]) and _has(free_lo, free_hi, nxt):
                                if nxt < HALF_BITS:
                                    free_lo ^= 1 << nxt
                                else:
                                    free_hi ^= 1 << (nxt - HALF_BITS)
                                todo[end] = nxt
                                end += 1
                    comp_lo[comps] = c_lo
                    comp_hi[comps] = c_hi
                    comps += 1
                    r_lo |= c_lo
                    r_hi |= c_hi
                else:
                    for c in range(comps):
                        if _has(comp_lo[c], comp_hi[c], land):
                            r_lo |= comp_lo[c]
                            r_hi |= comp_hi[c]
                            break
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


@njit(cache=True)
def fill_stone_planes(obs, mine_lo, mine_hi, theirs_lo, theirs_hi):
    """Set channel 1 (the observer's stones) and 2 (the opponent's) of the flat observation."""
    for i in range(HALF_BITS):
        obs[OWN_SLOT[i]] = (mine_lo >> i) & 1
        obs[OWN_SLOT[i] + 1] = (theirs_lo >> i) & 1
        obs[OWN_SLOT[HALF_BITS + i]] = (mine_hi >> i) & 1
        obs[OWN_SLOT[HALF_BITS + i] + 1] = (theirs_hi >> i) & 1


class _Scratch(threading.local):
    """The kernels' output buffer, one per thread (the results are copied out of it)."""

    def __init__(self):
        self.buffer = np.empty(NUM_CELLS * NUM_CELLS, dtype=np.int64)


_SCRATCH = _Scratch()


def moves_of(stones: int, occ: int, colour: int) -> tuple[np.ndarray, np.ndarray]:
    """The moves of the stones ``stones`` of ``colour`` on the board ``occ`` before the split
    rule: their mask (bool, 88 * 88) and their ascending list (int64)."""
    mask = np.zeros(NUM_CELLS * NUM_CELLS, dtype=bool)
    scratch = _SCRATCH.buffer
    count = legal_moves(stones & HALF, stones >> HALF_BITS, occ & HALF, occ >> HALF_BITS, colour, mask, scratch)
    return mask, scratch[:count].copy()


def components(occ: int) -> list[int]:
    """The 8-connected groups of the stones in ``occ``, as masks, ordered by their lowest cell."""
    scratch = _SCRATCH.buffer
    count = label_groups(occ & HALF, occ >> HALF_BITS, scratch)
    halves = scratch[:2 * count].tolist()
    return [halves[k] | halves[k + 1] << HALF_BITS for k in range(0, 2 * count, 2)]
