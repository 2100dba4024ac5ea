"""Baseline agents for every game: uniform random and a one-ply greedy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sky_envs.agents.base import Agent, random_legal
from sky_envs.core.state import GameState


class RandomAgent(Agent):
    """A uniformly random legal action (from the observation's action mask)."""

    name = "random"

    def act(self, observation: dict, state: GameState | None = None) -> int:
        return random_legal(observation["action_mask"], self.rng)


class GreedyAgent(Agent):
    """One-ply lookahead: take a winning action, avoid a losing one, else the action whose
    result the game's heuristic likes best (ties broken at random).

    Hidden information is first resampled from the seat's point of view, so the agent
    never uses cards it cannot see. Results are judged by the game's heuristic
    (``game.heuristic``, :class:`~sky_envs.core.state.Heuristic`); a game whose heuristic has
    array move values scores all its actions at once (the same values; perfect-information
    games, so the state itself is the world), the others play each action on a clone.
    """

    name = "greedy"
    needs_state = True

    def act(self, observation: dict, state: GameState | None = None) -> int:
        return self.act_many([self._require_state(state)])[0]

    def act_many(self, states: Sequence[GameState]) -> list[int]:
        """The greedy action of the seat to move in each of ``states`` (games that score their
        actions from arrays do it for all the states of one game in one call)."""
        values: list[np.ndarray | None] = [None] * len(states)
        by_game: dict[int, list[int]] = {}
        for k, state in enumerate(states):
            by_game.setdefault(id(state.game), []).append(k)
        for ks in by_game.values():
            scored_states = states[ks[0]].game.heuristic.move_values([states[k] for k in ks])
            if scored_states is not None:
                for k, scored in zip(ks, scored_states):
                    values[k] = scored
        actions = []
        for state, scored in zip(states, values):
            if scored is None:  # play each action on a clone of a world the seat cannot tell apart
                seat = state.current_player
                world = state.sample_consistent(seat, self.rng)
                legal = world.legal_actions()
                scored = self.played_values(world, seat, legal)
            else:  # perfect information: the state itself is the world
                legal = state.legal_actions()
            best = np.flatnonzero(scored == scored.max())
            actions.append(int(legal[best[self.rng.integers(best.size)]]))
        return actions

    @staticmethod
    def played_values(world: GameState, seat: int, legal: np.ndarray) -> np.ndarray:
        """The value of each legal action: play it on a clone, then judge the result."""
        heuristic = world.game.heuristic
        return np.array([heuristic.played_value(world, seat, action) for action in legal.tolist()], dtype=np.float64)
