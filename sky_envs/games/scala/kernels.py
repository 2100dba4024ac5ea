"""Scala's per-move work compiled with numba: move generation and the observation planes.

Move generation is the whole cost of a Scala step in Python (a chain-of-jumps search for
every stone, every move), and the benchmark showed compiling it pays several times over.
The kernels take the 88-bit colour masks split in two 44-bit halves (so that each fits a
signed 64-bit integer) and work on the cell arrays of ``board.py``.
Compiled code is cached on disk (``cache=True``): only the first import on a machine
compiles.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sky_envs.games.scala.board import (
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
    """
    occ = np.empty(NUM_CELLS, dtype=np.uint8)
    own = np.empty(NUM_CELLS, dtype=np.uint8)
    _unpack(occ_lo, occ_hi, occ)
    _unpack(own_lo, own_hi, own)
    empty = np.empty(NUM_CELLS, dtype=np.uint8)
    for i in range(NUM_CELLS):
        empty[i] = 1 - occ[i]
    empty[DEFENDED[colour]] = 0
    component = np.full(NUM_CELLS, -1, dtype=np.int64)
    members = np.empty(NUM_CELLS, dtype=np.int64)        # cells, grouped by component
    first = np.zeros(NUM_CELLS + 1, dtype=np.int64)      # component k is members[first[k]:first[k + 1]]
    marked_for = np.full(NUM_CELLS, -1, dtype=np.int64)  # last stone a component was added for
    count_components = 0
    count = 0
    for start in range(NUM_CELLS):
        if not own[start]:
            continue
        row = start * NUM_CELLS
        for k in range(8):
            cell = NEIGHBOURS[start, k]
            if cell < 0:
                break
            if empty[cell]:
                mask[row + cell] = True
        for k in range(8):
            land = JUMP_LANDINGS[start, k]
            if land < 0:
                break
            if not (occ[JUMP_OVERS[start, k]] and empty[land]):
                continue
            comp = component[land]
            if comp < 0:                    # a new component: flood it
                comp = count_components
                count_components += 1
                begin = first[comp]
                end = begin + 1
                members[begin] = land
                component[land] = comp
                todo = begin
                while todo < end:
                    cell = members[todo]
                    todo += 1
                    for j in range(8):
                        nxt = JUMP_LANDINGS[cell, j]
                        if nxt < 0:
                            break
                        if occ[JUMP_OVERS[cell, j]] and empty[nxt] and component[nxt] < 0:
                            component[nxt] = comp
                            members[end] = nxt
                            end += 1
                first[comp + 1] = end
            if marked_for[comp] != start:
                marked_for[comp] = start
                for m in range(first[comp], first[comp + 1]):
                    mask[row + members[m]] = True
        for end_cell in range(NUM_CELLS):
            if mask[row + end_cell]:
                actions[count] = row + end_cell
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


_SCRATCH = np.empty(NUM_CELLS * NUM_CELLS, dtype=np.int64)


def moves_of(stones: int, occ: int, colour: int) -> tuple[np.ndarray, np.ndarray]:
    """The moves of the stones ``stones`` of ``colour`` on the board ``occ`` before the split
    rule: their mask (bool, 88 * 88) and their ascending list (int64)."""
    mask = np.zeros(NUM_CELLS * NUM_CELLS, dtype=bool)
    count = legal_moves(stones & HALF, stones >> HALF_BITS, occ & HALF, occ >> HALF_BITS, colour, mask, _SCRATCH)
    return mask, _SCRATCH[:count].copy()


def components(occ: int) -> list[int]:
    """The 8-connected groups of the stones in ``occ``, as masks, ordered by their lowest cell."""
    count = label_groups(occ & HALF, occ >> HALF_BITS, _SCRATCH)
    halves = _SCRATCH[:2 * count].tolist()
    return [halves[k] | halves[k + 1] << HALF_BITS for k in range(0, 2 * count, 2)]
