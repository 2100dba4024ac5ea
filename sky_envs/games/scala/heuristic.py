"""Scala's heuristic for the baseline agents (:class:`~sky_envs.core.state.Heuristic`): how
far each side's leading stone has come towards the goal it attacks; a searcher also counts
the stones kept."""

from __future__ import annotations

from sky_envs.core.state import Heuristic
from sky_envs.games.scala.board import CELL_RC

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


class ScalaHeuristic(Heuristic):
    def value(self, state, seat: int) -> float:
        return scala(state, seat)

    def search_value(self, state, seat: int) -> float:
        return scala_with_material(state, seat)
