"""Baseline agents for every game: uniform random and a one-ply greedy."""

from __future__ import annotations

import numpy as np

from sky_envs.agents.base import Agent, random_legal
from sky_envs.agents.heuristics import evaluate
from sky_envs.core.state import GameState

WIN = 1000.0


class RandomAgent(Agent):
    """A uniformly random legal action (from the observation's action mask)."""

    name = "random"

    def act(self, observation: dict, state: GameState | None = None) -> int:
        return random_legal(observation["action_mask"], self.rng)


class GreedyAgent(Agent):
    """One-ply lookahead: take a winning action, avoid a losing one, else the action whose
    result the game's heuristic likes best (ties broken at random).

    Hidden information is first resampled from the seat's point of view, so the agent
    never uses cards it cannot see.
    """

    name = "greedy"
    needs_state = True

    def act(self, observation: dict, state: GameState | None = None) -> int:
        state = self._require_state(state)
        seat = state.current_player
        world = state.sample_consistent(seat, self.rng)
        legal = world.legal_actions()
        values = np.empty(legal.size)
        for k, action in enumerate(legal):
            child = world.clone()
            child.apply(int(action))
            if child.is_terminal():
                values[k] = WIN * child.returns()[seat]
            else:
                values[k] = evaluate(child, seat)
        best = np.flatnonzero(values == values.max())
        return int(legal[best[self.rng.integers(best.size)]])
