"""Highrise Heist's and Golden Rush's heuristic for the baseline agents
(:class:`~sky_envs.core.state.Heuristic`): the score lead (the default value), and the
one-ply values of every legal action read from arrays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sky_envs.core.state import Heuristic
from sky_envs.games.highrise_heist.rules import HEIGHT, PLACE

_STACK_TABLES: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}


def _lead(values: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Per row of a ``(K, players)`` array: the value of that row's seat minus the best other seat's."""
    rows = np.arange(len(values))
    others = np.where(np.arange(values.shape[1]) == seats[:, None], -np.inf, values)
    return values[rows, seats] - others.max(axis=1)


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


class StandsHeuristic(Heuristic):
    def move_values(self, states: Sequence) -> list[np.ndarray]:
        """One-ply values of every legal action in Highrise Heist and Golden Rush positions.

        Scores change only when a stand closes (its owner scores it, the game may be decided,
        Golden Rush queues eligible seats): an action that closes nothing leaves the score lead
        as it was, except that a Golden Rush placement adds the mover's blocks to its score
        (Highrise Heist scores closed stands only). Those are read from arrays; the few
        actions that close a stand (and the swap) are played on a clone.
        """
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
                values[k] = self.played_value(state, seat, int(legal[k]))
            out.append(values)
        return out
