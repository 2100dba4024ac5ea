"""Playouts: a game played to its end from a search leaf, the verdict PUCT mixes with the
network's value (``rollout_weight``).

* ``"random"``: uniformly random legal moves (:meth:`GameState.random_playout`, what the
  MCTS baseline rolls out with).
* ``"greedy"``: at each decision the one-ply best move by the game's array move values
  (:data:`~sky_envs.agents.heuristics.ACTION_VALUES`, what the greedy agent plays; ties
  broken at random), and a uniformly random one with probability :data:`GREEDY_EPSILON`,
  so that the playouts of one leaf differ. Where a move can swing the result until the last
  ply (Sky Scrapers: a stack landing on a sky scraper takes it), random playouts judge a
  position by blunders neither side would make; greedy ones cost a few times more per ply.
  Only perfect-information games with move values (Sky Scrapers, Highrise Heist, Golden
  Rush) have them: :func:`playout_error` says so for the others.
"""

from __future__ import annotations

import random

import numpy as np

from sky_envs.agents.heuristics import ACTION_VALUES
from sky_envs.core.state import GameState

PLAYOUTS = ("random", "greedy")
GREEDY_EPSILON = 0.1


def playout_error(kind: str, game) -> str | None:
    """Why playouts of ``kind`` (one of :data:`PLAYOUTS`) cannot be played in ``game``, or
    None where they can."""
    if kind == "greedy" and game.name not in ACTION_VALUES:
        return (f"greedy playouts need the game's array move values, which {game.name} has not "
                f"(games with them: {', '.join(sorted(ACTION_VALUES))}); use rollout_policy 'random'")
    return None


def greedy_playout(state: GameState, rng: np.random.Generator, epsilon: float = GREEDY_EPSILON) -> np.ndarray:
    """Plays ``state`` (changed in place) to the end as described in the module docstring:
    every seat's return, zeros for a draw or a truncated game. Decisions the move values
    do not cover (say, a placement phase) are played at random."""
    pick = random.Random(int(rng.integers(1 << 62))).random
    move_values = ACTION_VALUES[state.game.name]
    while state.current_player >= 0:
        values = None if pick() < epsilon else move_values([state])[0]
        legal = state.legal_actions()
        if values is None:
            action = legal[int(pick() * legal.size)]
        else:
            best = np.flatnonzero(values == values.max())
            action = legal[best[int(pick() * best.size)]]
        state._apply(int(action))
    return state.returns() if state.is_terminal() else np.zeros(state.num_players)


def playout(state: GameState, kind: str, rng: np.random.Generator) -> np.ndarray:
    """A playout of ``kind`` from ``state`` (changed in place): every seat's return."""
    if kind == "greedy":
        return greedy_playout(state, rng)
    return state.random_playout(rng)
