"""Baseline agents for every game: uniform random and a one-ply greedy."""

from __future__ import annotations

import numpy as np

from sky_envs.agents.base import Agent, random_legal
from sky_envs.agents.heuristics import ACTION_VALUES, WIN, evaluate
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
    never uses cards it cannot see. Games listed in ``heuristics.ACTION_VALUES`` score all
    their actions at once (the same values, from arrays); the others play each action on
    a clone.
    """

    name = "greedy"
    needs_state = True

    def act(self, observation: dict, state: GameState | None = None) -> int:
        state = self._require_state(state)
        seat = state.current_player
        world = state.sample_consistent(seat, self.rng)
        legal = world.legal_actions()
        values = ACTION_VALUES[world.game.name](world, seat, legal) if world.game.name in ACTION_VALUES else None
        if values is None:
            values = self.played_values(world, seat, legal)
        best = np.flatnonzero(values == values.max())
        return int(legal[best[self.rng.integers(best.size)]])

    @staticmethod
    def played_values(world: GameState, seat: int, legal: np.ndarray) -> np.ndarray:
        """The value of each legal action: play it on a clone, then judge the result."""
        values = np.empty(legal.size)
        for k, action in enumerate(legal.tolist()):
            child = world.clone()
            child._apply(action)  # legal by construction: skip apply()'s checks
            values[k] = WIN * child.returns()[seat] if child.is_terminal() else evaluate(child, seat)
        return values
