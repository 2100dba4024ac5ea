"""Playouts: a game played to its end from a search leaf, the verdict PUCT mixes with the
network's value (``rollout_weight``).

* ``"random"``: uniformly random legal moves (:meth:`GameState.playout_returns`, what the
  MCTS baseline rolls out with).
* ``"greedy"``: at each decision the one-ply best move by the game's array move values
  (``game.heuristic.move_values``, :class:`~sky_envs.core.state.Heuristic`: what the greedy agent plays; ties
  broken at random), and a uniformly random one with probability :data:`GREEDY_EPSILON`,
  so that the playouts of one leaf differ. Where a move can swing the result until the last
  ply (Sky Scrapers: a stack landing on a sky scraper takes it), random playouts judge a
  position by blunders neither side would make; greedy ones cost a few times more per ply.
  Only perfect-information games whose heuristic has move values have them (Sky Scrapers,
  Highrise Heist, Golden Rush): :func:`playout_error` says so for the others. Sky Scrapers'
  compiled engine plays them (``BatchedGames.greedy_play_out``); :func:`greedy_playouts` is
  the readable reference, which the other games play.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from sky_envs.core.state import GameState

PLAYOUTS = ("random", "greedy")
GREEDY_EPSILON = 0.1


def playout_error(kind: str, game) -> str | None:
    """Why playouts of ``kind`` (one of :data:`PLAYOUTS`) cannot be played in ``game``, or
    None where they can."""
    if kind == "greedy" and not game.heuristic.has_move_values:
        return (f"greedy playouts need the game's array move values, which {game.name} has not "
                "(its heuristic has no move_values); use rollout_policy 'random'")
    return None


def greedy_playouts(states: Sequence[GameState], rng: np.random.Generator,
                    epsilon: float = GREEDY_EPSILON) -> list[np.ndarray]:
    """Plays each of ``states`` (changed in place; one game) to the end as the module
    docstring describes: every seat's return per state, zeros for a draw or a truncated
    game. The move values of all the unfinished playouts are asked for in one call per ply;
    each playout draws its own stream from ``rng`` first, so its moves do not depend on the
    others played with it. Decisions the values do not cover (a placement phase) are random."""
    move_values = states[0].game.heuristic.move_values if states else None
    picks = [random.Random(int(rng.integers(1 << 62))).random for _ in states]
    live = [k for k, state in enumerate(states) if state.current_player >= 0]
    while live:
        greedy = [k for k in live if picks[k]() >= epsilon]
        values = dict(zip(greedy, move_values([states[k] for k in greedy]))) if greedy else {}
        for k in live:
            state, scored = states[k], values.get(k)
            legal = state.legal_actions()
            if scored is None:
                action = legal[int(picks[k]() * legal.size)]
            else:
                best = np.flatnonzero(scored == scored.max())
                action = legal[best[int(picks[k]() * best.size)]]
            state.apply_unchecked(int(action))
        live = [k for k in live if states[k].current_player >= 0]
    return [_end_returns(state) for state in states]


def playouts(states: Sequence[GameState], kind: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Playouts of ``kind`` from each of ``states`` (left as they are): every seat's return
    per state. They are played by the game's compiled engine where it has one that plays
    them (random ones: :meth:`GameState.playout_returns`; greedy ones:
    ``BatchedGames.greedy_play_out``, Sky Scrapers), with the same moves and results as the
    readable ones (:func:`greedy_playouts` on copies)."""
    if kind == "random":
        return [state.playout_returns(rng) for state in states]
    engine = states[0].game.playout_engine() if states else None
    if engine is None or not engine.plays_greedy_out:
        return greedy_playouts([state.clone() for state in states], rng)
    seeds = [int(rng.integers(1 << 62)) for _ in states]     # drawn first, as greedy_playouts draws them
    return [engine.greedy_play_out(state, seed, GREEDY_EPSILON) if state.current_player >= 0 else _end_returns(state)
            for state, seed in zip(states, seeds)]


def _end_returns(state: GameState) -> np.ndarray:
    """What a playout from ``state`` returns once its game is over: the returns, zeros for a
    game cut at ``max_turns``."""
    return state.returns() if state.is_terminal() else np.zeros(state.num_players)
