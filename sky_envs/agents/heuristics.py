"""Cheap per-game evaluations of a position for one seat, used by the greedy and alpha-beta agents.

Higher is better for ``seat``. A game without an entry here is judged by the ``scores``
its state reports in ``info()`` (own score minus the best other), or not at all.

A perfect-information game may also score every legal action of many positions at once,
without playing any (:data:`ACTION_VALUES`): the greedy agent's one-ply values, computed
on arrays (the self-play collector asks for all its greedy games' moves in one call). They
must be exactly the values that playing each action on a clone and evaluating the result
would give (``tests/training/test_opponents.py`` checks this on random positions); a
position it does not cover gets ``None``, and the agent plays its actions on clones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from sky_envs.agents.kernels import sky_scrapers_move_values, sky_scrapers_value
from sky_envs.core.state import GameState

WIN = 1000.0  # the value of a finished game, times the seat's return


def score_lead(state: GameState, seat: int) -> float:
    scores = state.info().get("scores")
    if scores is None:
        return 0.0
    others = [s for i, s in enumerate(scores) if i != seat]
    return float(scores[seat] - max(others))


def _lead(values: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Per row of a ``(K, players)`` array: the value of that row's seat minus the best other seat's."""
    rows = np.arange(len(values))
    others = np.where(np.arange(values.shape[1]) == seats[:, None], -np.inf, values)
    return values[rows, seats] - others.max(axis=1)


def sky_scrapers(state, seat: int) -> float:
    """Sky scraper lead first, then tiles under own control and the tallest sky scraper
    (:func:`~sky_envs.agents.kernels.sky_scrapers_value`)."""
    return float(sky_scrapers_value(state.heights, state.tops, state.seat_colours, seat, state.game.skyscraper_height))


def sky_scrapers_moves(states: Sequence) -> list[np.ndarray | None]:
    """One-ply values of every legal stack move (the move phase) in each of ``states``;
    ``None`` for a state in another phase. Each move is played on scratch arrays by a
    compiled kernel (:mod:`~sky_envs.agents.kernels`), which scores the result as
    :func:`sky_scrapers` would, or as ``WIN`` times the seat's return where no stack can move
    after it (the game is over, as ``SkyScrapersState._start_turn`` decides).
    """
    from sky_envs.games.sky_scrapers.state import MOVE

    out: list[np.ndarray | None] = [None] * len(states)
    for k, state in enumerate(states):
        if state.phase == MOVE:
            actions = state.legal_actions()
            values = np.empty(actions.size)
            sky_scrapers_move_values(state.heights, state.tops, state._landing, state.board.reach, state.seat_colours,
                                     state.current_player, actions, state.game.skyscraper_height, WIN, values)
            out[k] = values
    return out


#: (leading stone's progress, total progress) by (stones << 1 | colour): search and greedy
#: judge many positions that share one side's stones; cleared when full
_SCALA_PROGRESS: dict[int, tuple[int, int]] = {}
_SCALA_PROGRESS_KEPT = 1 << 16


@cache
def _scala_rows() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each Scala cell's row, and the first cell of each row 2..14 (read on first use:
    importing the board at start-up would load the Scala engine with every agent)."""
    from sky_envs.games.scala.board import CELL_RC

    return (tuple(row for row, _ in CELL_RC),
            tuple(i for i in range(1, len(CELL_RC)) if CELL_RC[i][0] != CELL_RC[i - 1][0]))


def _scala_progress(stones: int, colour: int) -> tuple[int, int]:
    """How far ``colour``'s stones (a bit mask) have come, in rows: Blue's rows count up
    from 1, Red's down from 14. Cells are numbered row by row upward, so the leading stone
    is the highest (Blue) or lowest (Red) bit, and a stone's row is the number of row
    starts at or below it."""
    key = stones << 1 | colour
    found = _SCALA_PROGRESS.get(key)
    if found is not None:
        return found
    row_of, starts = _scala_rows()
    if not stones:
        found = (0, 0)
    else:
        count = stones.bit_count()
        rows = count + sum((stones >> start).bit_count() for start in starts)
        if colour == 0:
            found = (row_of[stones.bit_length() - 1], rows)
        else:
            found = (15 - row_of[(stones & -stones).bit_length() - 1], 15 * count - rows)
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
    another), so stones are worth keeping; two plies of alpha-beta scored 0.93 against greedy
    with this term (30 games) and 0.83 without it."""
    return scala(state, seat) + (state.stones[seat].bit_count() - state.stones[1 - seat].bit_count())


def played_value(world: GameState, seat: int, action: int) -> float:
    """The greedy value of one action: play it on a clone of ``world``, then judge the result."""
    child = world.clone()
    child.apply_unchecked(action)  # legal by construction: skip apply()'s checks
    return WIN * float(child.returns()[seat]) if child.is_terminal() else evaluate(child, seat)


_STACK_TABLES: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}


def _stack_tables(layout) -> tuple[np.ndarray, ...]:
    """Per action of a Highrise Heist / Golden Rush layout: the transfer's source and target
    stands, the placement's (up to two) stands and counts, and whether it is the swap. Unused
    stand entries point at an extra stand of height 0 (index ``S``), whose counts are 0."""
    key = (layout.num_stands, layout.swap)
    if key not in _STACK_TABLES:
        S, N = layout.num_stands, layout.size
        source, target = np.full(N, S), np.full(N, S)
        stands, counts = np.full((N, 2), S), np.zeros((N, 2), dtype=np.int64)
        for action in range(layout.no_transfer):
            source[action], target[action] = divmod(action, S)
        for k, parts in enumerate(layout.placements):
            for j, (stand, count) in enumerate(parts):
                stands[layout.single + k, j], counts[layout.single + k, j] = stand, count
        swap = np.arange(N) == layout.swap
        _STACK_TABLES[key] = (source, target, stands, counts, swap)
    return _STACK_TABLES[key]


def stack_moves(states: Sequence) -> list[np.ndarray]:
    """One-ply values of every legal action in Highrise Heist and Golden Rush positions.

    Scores change only when a stand closes (its owner scores it, the game may be decided,
    Golden Rush queues eligible seats): an action that closes nothing leaves the score lead
    as it was, except that a Golden Rush placement adds the mover's blocks to its score
    (Highrise Heist scores closed stands only). Those are read from arrays; the few
    actions that close a stand (and the swap) are played on a clone.
    """
    from sky_envs.games.highrise_heist.state import HEIGHT, PLACE

    out = []
    for state in states:
        seat = state.current_player
        legal = state.legal_actions()
        source, target, stands, counts, swap = (table[legal] for table in _stack_tables(state.game.layout))
        heights = np.array(state.heights + [0])
        groups = np.array(state.groups + [0])
        if state.phase == PLACE:
            played = (heights[stands] + counts >= HEIGHT).any(axis=1)
        else:
            played = swap | (heights[target] + groups[source] >= HEIGHT)
        scores = np.array(state.info()["scores"], dtype=np.float64)
        if state.phase == PLACE and state.game.name == "golden_rush":  # the mover's own blocks count
            gained = np.zeros((legal.size, scores.size))
            gained[:, seat] = counts.sum(axis=1)
            values = _lead(scores + gained, np.full(legal.size, seat))
        else:
            values = np.full(legal.size, _lead(scores[None], np.array([seat]))[0])
        for k in np.flatnonzero(played).tolist():
            values[k] = played_value(state, seat, int(legal[k]))
        out.append(values)
    return out


HEURISTICS: dict[str, Callable[[GameState, int], float]] = {
    "sky_scrapers": sky_scrapers,
    "scala": scala,
}

ACTION_VALUES: dict[str, Callable[[Sequence[GameState]], list[np.ndarray | None]]] = {
    "sky_scrapers": sky_scrapers_moves,
    "highrise_heist": stack_moves,
    "golden_rush": stack_moves,
}


#: what search agents (``AlphaBetaAgent``) judge positions by, where it differs from greedy's
SEARCH_HEURISTICS: dict[str, Callable[[GameState, int], float]] = {
    "scala": scala_with_material,
}


def evaluate(state: GameState, seat: int) -> float:
    return HEURISTICS.get(state.game.name, score_lead)(state, seat)


def search_evaluate(state: GameState, seat: int) -> float:
    return SEARCH_HEURISTICS.get(state.game.name, evaluate)(state, seat)
