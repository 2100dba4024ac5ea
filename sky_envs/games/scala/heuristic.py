"""Scala's heuristic for the baseline agents (:class:`~sky_envs.core.state.Heuristic`): how
far each side's leading stone has come towards the goal it attacks; a searcher also counts
the stones kept. The greedy player's one-ply values of every legal move come from one
compiled call per position (:meth:`ScalaHeuristic.move_values`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from sky_envs.core.state import WIN, Heuristic
from sky_envs.games.scala.board import CELL_RC, NUM_CELLS
from sky_envs.games.scala.kernels import HALF_BITS, move_work, play_ply
from sky_envs.games.scala.rules import MOVER_LOSES

#: (leading stone's progress, total progress) by (stones << 1 | colour): search and greedy
#: judge many positions that share one side's stones; cleared when full
_SCALA_PROGRESS: dict[int, tuple[int, int]] = {}
_SCALA_PROGRESS_KEPT = 1 << 16

#: each cell's row, and the first cell of each row 2..14
_ROW_OF = tuple(row for row, _ in CELL_RC)
_ROW_STARTS = tuple(i for i in range(1, len(CELL_RC)) if CELL_RC[i][0] != CELL_RC[i - 1][0])


def _scala_progress(stones: int, colour: int) -> tuple[int, int]:
    """How far ``colour``'s stones (a bit mask) have come, in rows: Blue's rows count up
    from 1, Red's down from 14. Cells are numbered row by row upward, so the leading stone
    is the highest (Blue) or lowest (Red) bit, and a stone's row is the number of row
    starts at or below it."""
    key = stones << 1 | colour
    found = _SCALA_PROGRESS.get(key)
    if found is not None:
        return found
    if not stones:
        found = (0, 0)
    else:
        count = stones.bit_count()
        rows = count + sum((stones >> start).bit_count() for start in _ROW_STARTS)
        if colour == 0:
            found = (_ROW_OF[stones.bit_length() - 1], rows)
        else:
            found = (15 - _ROW_OF[(stones & -stones).bit_length() - 1], 15 * count - rows)
    if len(_SCALA_PROGRESS) >= _SCALA_PROGRESS_KEPT:
        _SCALA_PROGRESS.clear()
    _SCALA_PROGRESS[key] = found
    return found


def scala(state, seat: int) -> float:
    """How far each side's leading stone has come towards the goal it attacks, plus a
    twentieth of the difference in the stones' average progress (:func:`_scala_progress`)."""
    own_lead, own_total = _scala_progress(state.stones[seat], seat)
    other_lead, other_total = _scala_progress(state.stones[1 - seat], 1 - seat)
    return own_lead - other_lead + 0.05 * (own_total - other_total) / 14


def scala_with_material(state, seat: int) -> float:
    """Scala for a searcher: :func:`scala` plus one point per stone more than the opponent.
    A side reduced to one stone can only draw (the split rule keeps every stone next to
    another), so a searcher that sees captures coming keeps its stones."""
    return scala(state, seat) + (state.stones[seat].bit_count() - state.stones[1 - seat].bit_count())


#: per cell, its row (1..14) as :func:`_scala_progress` counts it, for the compiled values
_ROW = np.array(_ROW_OF, dtype=np.int64)


@njit(cache=True)
def _progress(lo, hi, colour):
    """:func:`_scala_progress` of the stones in the halves ``lo``, ``hi``."""
    count = total = 0
    lowest, highest = -1, -1
    for cell in range(NUM_CELLS):
        bit = (lo >> cell) & 1 if cell < HALF_BITS else (hi >> (cell - HALF_BITS)) & 1
        if bit:
            if lowest < 0:
                lowest = cell
            highest = cell
            count += 1
            total += _ROW[cell]
    if count == 0:
        return 0, 0
    if colour == 0:
        lead = _ROW[highest]
    else:
        lead = 15 - _ROW[lowest]
        total = 15 * count - total
    return lead, total


@njit(cache=True)
def _move_values(stones, colour, actions, connected, plies, mover_loses, max_turns, out):
    """``Heuristic.played_value`` of each of ``actions`` for ``colour``, the player to move in
    the position ``stones`` (the four halves): each move is played on a copy by ``play_ply``,
    a won or lost game is worth ``WIN`` or ``-WIN``, any other position :func:`scala`."""
    child = np.empty(4, dtype=np.int64)
    mask = np.zeros(NUM_CELLS * NUM_CELLS, dtype=np.bool_)     # where play_ply lists moves, never read
    scratch = np.empty(NUM_CELLS * NUM_CELLS, dtype=np.int64)
    groups = np.empty(2 * NUM_CELLS, dtype=np.int64)
    work = move_work()
    for k in range(len(actions)):
        child[:] = stones
        winner, over = play_ply(child, colour, actions[k], connected, plies + 1, mover_loses, max_turns,
                                mask, scratch, groups, work, False)
        if over == 1:
            out[k] = WIN if winner == colour else -WIN
            continue
        own_lead, own_total = _progress(child[2 * colour], child[2 * colour + 1], colour)
        other_lead, other_total = _progress(child[2 - 2 * colour], child[3 - 2 * colour], 1 - colour)
        out[k] = own_lead - other_lead + 0.05 * (own_total - other_total) / 14


class ScalaHeuristic(Heuristic):
    def value(self, state, seat: int) -> float:
        return scala(state, seat)

    def move_values(self, states: Sequence) -> list[np.ndarray]:
        """One-ply values of every legal move of each position, as ``played_value`` gives them
        (equal to the last bit: ``tests/games/scala``), from one compiled call per position
        instead of a clone per move."""
        out = []
        for state in states:
            legal = state.legal_actions()
            values = np.empty(legal.size, dtype=np.float64)
            game = state.game
            _move_values(np.array(state._halves, dtype=np.int64), state.current_player, legal, state.connected,
                         state.plies, game.split_rule == MOVER_LOSES, game.max_turns, values)
            out.append(values)
        return out

    def search_value(self, state, seat: int) -> float:
        return scala_with_material(state, seat)
