"""The greedy baseline's moves in Scala, compiled over the slots of a batch.

:class:`~sky_envs.agents.baselines.GreedyAgent` takes the legal action whose one-ply value
the game's heuristic (:class:`~sky_envs.games.scala.heuristic.ScalaHeuristic`) likes best,
ties broken by the agent's next draw. Scala's heuristic already scores all of a position's
moves in one compiled call (``heuristic._move_values``); :func:`greedy_actions` makes that
call for each slot straight from the batch's arrays and picks the move there, so the moves,
and the agent's generator afterwards, are the Python agent's, bit for bit
(``tests/agents/test_compiled_greedy.py``), without making a ``GameState`` per decision.
"""

from __future__ import annotations

from numba import njit

from sky_envs.core.batched_kernel import greedy_pick, legal_list
from sky_envs.games.scala.heuristic import _move_values


@njit(cache=True)
def greedy_actions(slots, out, agent, win, legal, values, action_mask, stones, current_player, plies, connected,
                   mover_loses, max_turns):
    """The greedy agent's action for the seat to move in each of ``slots`` (in that order,
    the ties broken by draws from ``agent``, the agent's generator words), into ``out``;
    ``legal`` and ``values`` are work arrays of one row's length, the rest the batch's
    arrays. ``win`` goes unused: ``_move_values`` values a decided game at the heuristic's
    own ``WIN``, the same number."""
    for k in range(slots.shape[0]):
        i = slots[k]
        count = legal_list(action_mask[i], legal)
        _move_values(stones[i], current_player[i], legal[:count], connected[i], plies[i], mover_loses, max_turns,
                     values)
        out[k] = greedy_pick(legal, values, count, agent)
