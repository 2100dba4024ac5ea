"""The greedy baseline's moves in Highrise Heist and Golden Rush, compiled over the slots of
a batch.

:class:`~sky_envs.agents.baselines.GreedyAgent` takes the legal action whose one-ply result
the game's heuristic (:class:`~sky_envs.games.highrise_heist.heuristic.StandsHeuristic`)
likes best: the score lead after it (``info()["scores"]``: closed stands in Highrise Heist,
blocks and closed stands in Golden Rush), a finished game by ``WIN`` times its return, ties
broken by the agent's next draw. :func:`greedy_actions` plays every legal action of a slot
on a copy of its position with the batch's own ``_apply`` and judges the result from the
arrays, so the moves, and the agent's generator afterwards, are the Python agent's, bit for
bit (``tests/agents/test_compiled_greedy.py``), without making a ``GameState``
per decision. Like the batch kernels it allocates nothing: the caller hands it a one-slot
scratch position and the work arrays.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.batched_kernel import greedy_pick, legal_list
from sky_envs.games.highrise_heist.batched_kernel import (PLAYERS, RUSH, STANDS, _apply, _compiled, _rush_score,
                                                          _write_returns)
from sky_envs.games.highrise_heist.rules import HEIGHT


@_compiled
def _score(cells, heights, queue, queue_len, i, seat, config):
    """``info()["scores"][seat]``: Golden Rush's score, Highrise Heist's closed stands owned."""
    if config[RUSH]:
        return _rush_score(cells, heights, queue, queue_len, i, seat, config)
    owned = 0
    for s in range(config[STANDS]):
        if heights[i, s] == HEIGHT and cells[i, s * HEIGHT + HEIGHT - 1] == seat:
            owned += 1
    return owned


@_compiled
def greedy_actions(slots, out, agent, win, legal, values, returns, action_mask, cells, heights, groups, turn, phase,
                   closed, queue, queue_len, copy_cells, copy_heights, copy_groups, copy_turn, copy_phase, copy_closed,
                   copy_queue, copy_queue_len, copy_seen_keys, placements, config):
    """The greedy agent's action for the seat to move in each of ``slots`` (in that order,
    the ties broken by draws from ``agent``, the agent's generator words), into ``out``.
    ``action_mask`` and the position arrays are the batch's; the ``copy_`` arrays one slot
    to play each action on."""
    P = config[PLAYERS]
    for k in range(slots.shape[0]):
        i = slots[k]
        seat = turn[i] % P
        count = legal_list(action_mask[i], legal)
        for c in range(count):
            for j in range(cells.shape[1]):
                copy_cells[0, j] = cells[i, j]
            for s in range(heights.shape[1]):
                copy_heights[0, s] = heights[i, s]
                copy_groups[0, s] = groups[i, s]
            for r in range(queue.shape[1]):
                copy_queue[0, r] = queue[i, r]
            copy_turn[0], copy_phase[0], copy_closed[0], copy_queue_len[0] = turn[i], phase[i], closed[i], queue_len[i]
            decided, _ = _apply(legal[c], 0, copy_cells, copy_heights, copy_groups, copy_turn, copy_phase, copy_closed,
                                copy_queue, copy_queue_len, copy_seen_keys, placements, config)
            if decided:
                returns[0, :] = 0.0
                _write_returns(returns, 0, copy_cells, copy_heights, copy_queue, copy_queue_len, config)
                value = win * returns[0, seat]
            else:
                rival = -1 << 30
                for o in range(P):
                    if o != seat:
                        rival = max(rival, _score(copy_cells, copy_heights, copy_queue, copy_queue_len, 0, o, config))
                value = np.float64(_score(copy_cells, copy_heights, copy_queue, copy_queue_len, 0, seat, config) - rival)
            values[c] = value
        out[k] = greedy_pick(legal, values, count, agent)
