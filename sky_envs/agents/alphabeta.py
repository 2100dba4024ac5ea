"""Depth-limited alpha-beta search on a game's heuristic, for two-seat games.

A classical searcher: every line of play ``depth`` decisions deep, the positions at the
end judged by the game's heuristic (``game.heuristic.search_value``,
:class:`~sky_envs.core.state.Heuristic`; finished games by their returns), values backed up
by minimax with alpha-beta cuts; among the best moves one is drawn at random. Turns need not
alternate (a seat that decides twice in a row maximises twice). Two plies deep it sees the
opponent's immediate reply, which the one-ply greedy agent does not; networks that imitate
it (``alphazero.expert``) are the first stage of Scala's shipped network.
"""

from __future__ import annotations

import math

from sky_envs.agents.base import Agent
from sky_envs.core.state import WIN, GameState


class AlphaBetaAgent(Agent):
    """Alpha-beta to ``depth`` decisions (``alphabeta@D`` as an agent spec), two seats only.

    Hidden information is resampled once per decision from the seat's point of view
    (``state.sample_consistent``), and the search runs on that world.
    """

    name = "alphabeta"
    needs_state = True

    def __init__(self, depth: int = 2, seed: int | None = None):
        super().__init__(seed)
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be an int >= 1, got {depth!r}")
        self.depth = depth

    def act(self, observation: dict, state: GameState | None = None) -> int:
        state = self._require_state(state)
        if state.num_players != 2:
            raise ValueError(f"alpha-beta searches two-seat games; this one has {state.num_players} seats")
        world = state.sample_consistent(state.current_player, self.rng)
        best, _ = self.best_actions(world)
        return int(best[self.rng.integers(len(best))])

    def best_actions(self, state: GameState) -> tuple[list[int], float]:
        """The actions of the seat to move with the highest minimax value ``depth`` plies
        deep, and that value (all of them, exactly: ties are not cut)."""
        seat = state.current_player
        best, best_value = [], -math.inf
        for value, action, child in _children(state, seat):
            if self.depth > 1 and child.current_player >= 0:
                # a window just below the best so far: a move that cannot beat it is cut
                # as soon as that is sure, and one that equals it is still valued exactly
                value = self._value(child, seat, self.depth - 1, best_value - 1e-9, math.inf)
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif value >= best_value - 1e-9:
                best.append(action)
        return best, best_value

    def _value(self, state: GameState, seat: int, depth: int, alpha: float, beta: float) -> float:
        """Minimax value for ``seat`` of the unfinished ``state``, exact inside (alpha, beta)."""
        maximising = state.current_player == seat
        value = -math.inf if maximising else math.inf
        for v, _, child in _children(state, seat):
            if depth > 1 and child.current_player >= 0:
                v = self._value(child, seat, depth - 1, alpha, beta)
            if maximising:
                value = max(value, v)
                alpha = max(alpha, v)
            else:
                value = min(value, v)
                beta = min(beta, v)
            if alpha >= beta:
                break
        return value


def _children(state: GameState, seat: int) -> list[tuple[float, int, GameState]]:
    """Every legal action as (its position's leaf value for ``seat``, action, position),
    the mover's most promising first: good moves early make the cuts. The heuristics of
    two-seat games are zero-sum (one seat's value is minus the other's), so one leaf value
    orders both seats' moves."""
    maximising = state.current_player == seat
    scored = []
    for action in state.legal_actions().tolist():
        child = state.clone()
        child.apply_unchecked(action)
        scored.append((_leaf(child, seat), action, child))
    scored.sort(key=(lambda entry: -entry[0]) if maximising else (lambda entry: entry[0]))
    return scored


def _leaf(state: GameState, seat: int) -> float:
    """A finished game by its return (a cut at max_turns is a draw), else the heuristic."""
    if state.current_player < 0:
        return WIN * float(state.returns()[seat]) if state.is_terminal() else 0.0
    return state.game.heuristic.search_value(state, seat)
