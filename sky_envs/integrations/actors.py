"""Batched decision makers: one call chooses the moves of every game waiting on the same player.

An *actor* decides for many games at once, for the seat to move in each:

* ``actor.act_batch(observations, masks, states)``: from a batch of a
  :class:`sky_envs.vector.VectorEnv` (the movers' observations and bool masks, stacked);
  ``states()`` gives the positions as ``GameState`` objects, asked for only by actors that
  search (it costs a copy per game).
* ``actor.act(states)``: from a list of ``GameState`` (tournaments, expert iteration).

A policy actor turns all the games into a single network forward, which is what makes
playing many games cheap: a batch-1 forward costs about as much as a batch-64 one.

* :class:`PolicyActor` — any sb3-contrib ``MaskableActorCriticPolicy`` (the live learner
  or a checkpoint), sampling or taking the most likely legal action.
* :class:`RandomActor` — a uniformly random legal action.
* :class:`AgentActor` — any :class:`~sky_envs.agents.Agent` (greedy, MCTS, your own): one
  ``act_slots(engine, slots)`` call on a vector env's slots where the agent reads them
  itself, else one ``act_many(states)`` call where the agent has one, else one ``act``
  call per game.

:func:`actor_for` gives the batched form of an agent. The single-agent vector adapters
(:mod:`sky_envs.integrations.learner_slots`) and the self-play collector play their
opponents through actors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from sky_envs.agents import Agent, PolicyAgent, RandomAgent
from sky_envs.core.state import GameState
from sky_envs.vector import random_actions

#: what ``act_batch`` calls for the positions themselves (only actors that search do)
States = Callable[[], Sequence[GameState]]


class SlotStates:
    """The ``states`` of some slots of a :class:`sky_envs.vector.VectorEnv`: called, the
    positions as ``GameState`` copies; an actor whose agent reads the engine's slots itself
    (``agent.act_slots(engine, slots)``, the greedy baseline's compiled moves) skips them."""

    def __init__(self, venv, slots: np.ndarray):
        self.venv, self.slots = venv, slots

    def __call__(self) -> list[GameState]:
        return [self.venv.game_state(int(i)) for i in self.slots]


class Actor:
    """Chooses a legal action for the seat to move in each of many games."""

    name = "actor"

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, states: States) -> np.ndarray:
        """One legal action per row of ``masks`` (bool ``(n, num_actions)``), for the seat whose
        observation is the same row of ``observations``."""
        raise NotImplementedError

    def act(self, states: Sequence[GameState]) -> np.ndarray:
        """One legal action per state, for ``state.current_player``."""
        return self.act_batch(*observe_batch(states), lambda: states)

    def act_on_slots(self, venv, slots: np.ndarray) -> np.ndarray:
        """What :meth:`act` plays on the positions of ``slots`` of a
        :class:`sky_envs.vector.VectorEnv`, the same actions and draws, reading the batch's
        observations and masks where the actor needs no positions (here: copies of them)."""
        return self.act(SlotStates(venv, slots)())

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the actor's own randomness (where it has any)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def sample_masked(logits, rng: np.random.Generator) -> np.ndarray:
    """One action per row, drawn from ``softmax(logits)`` (rows with ``-inf`` never win).

    Inverse-CDF sampling: the first index whose running total exceeds ``u`` times the row
    total. An illegal action adds zero to the total, so it can never be the first to
    exceed it, however the floating point rounds.
    """
    import torch

    probabilities = torch.softmax(logits, dim=1).numpy()
    cumulative = np.cumsum(probabilities, axis=1, dtype=np.float64)
    threshold = rng.random(len(cumulative)) * cumulative[:, -1]
    return (cumulative > threshold[:, None]).argmax(axis=1)


def observe_batch(states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
    """Observations and legal masks of the seat to move in each state, stacked."""
    observations = np.stack([state.observation(state.current_player) for state in states])
    masks = np.stack([state.legal_mask() for state in states])
    return observations, masks


class PolicyActor(Actor):
    """A ``MaskableActorCriticPolicy``: one forward for the whole batch."""

    def __init__(self, policy, name: str = "policy", deterministic: bool = False, seed: int | None = None,
                 symmetries=None):
        from sky_envs.agents.policy import NetworkEvaluator

        self.policy = policy
        self.evaluator = NetworkEvaluator(policy, symmetries)
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def act_on_slots(self, venv, slots: np.ndarray) -> np.ndarray:
        batch = venv.engine
        return self.act_batch(batch.observation[slots], batch.action_mask[slots], SlotStates(venv, slots))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, states: States) -> np.ndarray:
        logits = self.evaluator.masked_logits(observations, masks)
        if self.deterministic:
            return logits.argmax(dim=1).numpy()
        return sample_masked(logits, self.rng)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)


class RandomActor(Actor):
    """A uniformly random legal action in each game."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, states: States) -> np.ndarray:
        return random_actions(np.asarray(masks, dtype=bool), self.rng)

    def act(self, states: Sequence[GameState]) -> np.ndarray:
        out = np.empty(len(states), dtype=np.int64)   # no observations needed
        for k, state in enumerate(states):
            legal = state.legal_actions()
            out[k] = legal[self.rng.integers(legal.size)]
        return out

    def act_on_slots(self, venv, slots: np.ndarray) -> np.ndarray:
        out = np.empty(len(slots), dtype=np.int64)   # act's draws, from the masks' legal actions
        for k, row in enumerate(venv.engine.action_mask[slots]):
            legal = np.flatnonzero(row)
            out[k] = legal[self.rng.integers(legal.size)]
        return out

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)


class AgentActor(Actor):
    """Any :class:`Agent`: all games in one call where the agent has one (``act_slots`` on a
    vector env's slots, then ``act_many(states)``: the greedy baseline scores the moves of
    many games together), else game by game."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.name = agent.name

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, states: States) -> np.ndarray:
        if isinstance(states, SlotStates) and (actions := self._engine_actions(states.venv, states.slots)) is not None:
            return actions
        act_many = getattr(self.agent, "act_many", None)
        if act_many is not None:
            return np.asarray(act_many(states()), dtype=np.int64)
        out = np.empty(len(masks), dtype=np.int64)
        for k, state in enumerate(states()):
            observation = {"observation": observations[k], "action_mask": np.asarray(masks[k]).astype(np.int8)}
            out[k] = self.agent.act(observation, state)
        return out

    def act(self, states: Sequence[GameState]) -> np.ndarray:
        if getattr(self.agent, "act_many", None) is not None:   # no observations needed
            return np.asarray(self.agent.act_many(states), dtype=np.int64)
        return super().act(states)

    def act_on_slots(self, venv, slots: np.ndarray) -> np.ndarray:
        actions = self._engine_actions(venv, slots)
        return super().act_on_slots(venv, slots) if actions is None else actions

    def _engine_actions(self, venv, slots: np.ndarray) -> np.ndarray | None:
        """The agent's actions read from the vector env's engine (``agent.act_slots``), or None
        where the agent or the engine cannot."""
        act_slots = getattr(self.agent, "act_slots", None)
        actions = act_slots(venv.engine, slots) if act_slots is not None else None
        return None if actions is None else np.asarray(actions, dtype=np.int64)

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)


def actor_for(agent: Agent | Actor, seed: int | None = None) -> Actor:
    """The batched form of an agent: random and policy agents batch, others go one by one."""
    if isinstance(agent, Actor):
        return agent
    if isinstance(agent, RandomAgent):
        return RandomActor(seed)
    if isinstance(agent, PolicyAgent):
        return PolicyActor(agent.policy, agent.name, agent.deterministic, seed, agent.evaluator.symmetries)
    return AgentActor(agent)
