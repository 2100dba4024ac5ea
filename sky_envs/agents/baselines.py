"""Baseline agents for every game: uniform random and a one-ply greedy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sky_envs.agents.base import Agent, random_legal
from sky_envs.core.batched import BatchedGames
from sky_envs.core.state import GameState

_SLOT_0 = np.zeros(1, dtype=np.int64)


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
    games, so the state itself is the world), the others play each action on a clone, or,
    where the game's compiled engine plays greedy moves (:meth:`Game.greedy_engine`), have
    its kernel do both steps: the same moves and draws, without a clone.
    """

    name = "greedy"
    needs_state = True

    def act(self, observation: dict, state: GameState | None = None) -> int:
        return self.act_many([self._require_state(state)])[0]

    def act_many(self, states: Sequence[GameState]) -> list[int]:
        """The greedy action of the seat to move in each of ``states`` (a game whose compiled
        engine plays greedy moves decides there; games that score their actions from arrays do
        it for all the states of one game in one call)."""
        values: list[np.ndarray | None] = [None] * len(states)
        by_game: dict[int, list[int]] = {}
        for k, state in enumerate(states):
            by_game.setdefault(id(state.game), []).append(k)
        for ks in by_game.values():
            game = states[ks[0]].game
            if game.greedy_engine() is not None:
                continue
            scored_states = game.heuristic.move_values([states[k] for k in ks])
            if scored_states is not None:
                for k, scored in zip(ks, scored_states):
                    values[k] = scored
        actions = []
        for state, scored in zip(states, values):
            if scored is not None:  # perfect information: the state itself is the world
                actions.append(self._best(state.legal_actions(), scored))
            elif (action := self._compiled_action(state)) is not None:
                actions.append(action)
            else:
                actions.append(self.act_on_a_world(state))
        return actions

    def act_on_a_world(self, state: GameState) -> int:
        """The greedy action where the state hides cards from its seat to move: deal them at
        random into a world the seat cannot tell apart, play each action on a clone of it,
        take the best. The readable reference of the compiled engines' greedy moves."""
        seat = state.current_player
        world = state.sample_consistent(seat, self.rng)
        legal = world.legal_actions()
        return self._best(legal, self.played_values(world, seat, legal))

    def _best(self, legal: np.ndarray, scored: np.ndarray) -> int:
        """The legal action of the highest value, ties broken at random."""
        best = np.flatnonzero(scored == scored.max())
        return int(legal[best[self.rng.integers(best.size)]])

    def _compiled_action(self, state: GameState) -> int | None:
        """:meth:`act_on_a_world` by the game's compiled engine (:meth:`Game.greedy_engine`):
        the same action and draws; ``None`` where the game has none or its engine cannot
        hold the position (a generator other than numpy's PCG64, for one)."""
        engine = state.game.greedy_engine()
        if engine is None:
            return None
        try:
            engine.set_state(0, state)
        except ValueError:
            return None
        return int(engine.greedy_actions(_SLOT_0, self.rng)[0])

    def act_slots(self, engine: BatchedGames, slots: np.ndarray) -> np.ndarray | None:
        """The greedy action in each of ``slots`` of a batch of games (``engine``, a
        :class:`sky_envs.vector.VectorEnv`'s), decided by the engine's kernel where it plays
        greedy moves: the actions of ``act_many`` on those slots' states, without making
        them; ``None`` where it does not (then ask :meth:`act_many`)."""
        if not engine.plays_greedy:
            return None
        return engine.greedy_actions(slots, self.rng)

    @staticmethod
    def played_values(world: GameState, seat: int, legal: np.ndarray) -> np.ndarray:
        """The value of each legal action: play it on a clone, then judge the result."""
        heuristic = world.game.heuristic
        return np.array([heuristic.played_value(world, seat, action) for action in legal.tolist()], dtype=np.float64)
