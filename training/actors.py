"""Batched decision makers: one call chooses the move of every game waiting on the same player.

An *actor* is what the self-play collector (:mod:`training.collector`) asks for moves:
``actor.act(states)`` returns one legal action per state, for the seat to move in each.
A policy actor turns all of them into a single network forward, which is what makes
self-play with many games cheap: a batch-1 forward costs about as much as a batch-64 one.

* :class:`PolicyActor` — any sb3-contrib ``MaskableActorCriticPolicy`` (the live learner
  or a checkpoint), sampling or taking the most likely legal action.
* :class:`RandomActor` — a uniformly random legal action.
* :class:`AgentActor` — any :class:`~sky_envs.agents.Agent` (greedy, MCTS, your own), one
  ``act`` call per game: the fallback for agents that search rather than evaluate.

:func:`advance` plays many games forward together, grouping the games that wait on the same
actor into one call; the collector and the batched quick evaluations are built on it.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from sky_envs.agents import Agent, RandomAgent
from sky_envs.core.state import GameState


class Actor:
    """Chooses a legal action for ``state.current_player`` in each of ``states``."""

    name = "actor"

    def act(self, states: Sequence[GameState]) -> np.ndarray:
        raise NotImplementedError

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

    def act(self, states: Sequence[GameState]) -> np.ndarray:
        logits, _ = self.evaluator.logits_and_values(*observe_batch(states))
        if self.deterministic:
            return logits.argmax(dim=1).numpy()
        return sample_masked(logits, self.rng)


class RandomActor(Actor):
    """A uniformly random legal action in each game."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, states: Sequence[GameState]) -> np.ndarray:
        out = np.empty(len(states), dtype=np.int64)
        for k, state in enumerate(states):
            legal = state.legal_actions()
            out[k] = legal[self.rng.integers(legal.size)]
        return out


class AgentActor(Actor):
    """Any :class:`Agent`: all games in one ``act_many(states)`` call where the agent has one
    (the greedy baseline scores the moves of many games together), else game by game."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.name = agent.name

    def act(self, states: Sequence[GameState]) -> np.ndarray:
        act_many = getattr(self.agent, "act_many", None)
        if act_many is not None:
            return np.asarray(act_many(states), dtype=np.int64)
        out = np.empty(len(states), dtype=np.int64)
        for k, state in enumerate(states):
            seat = state.current_player
            observation = {"observation": state.observation(seat), "action_mask": state.legal_mask().astype(np.int8)}
            out[k] = self.agent.act(observation, state)
        return out


def actor_for(agent: Agent | Actor, seed: int | None = None) -> Actor:
    """The batched form of an agent: random and policy agents batch, others go one by one."""
    from sky_envs.agents import PolicyAgent

    if isinstance(agent, Actor):
        return agent
    if isinstance(agent, RandomAgent):
        return RandomActor(seed)
    if isinstance(agent, PolicyAgent):
        return PolicyActor(agent.policy, agent.name, agent.deterministic, seed, agent.evaluator.symmetries)
    return AgentActor(agent)


def advance(states: Sequence[GameState], games: Sequence[int], actor_of: Callable[[int, int], Actor | None],
            seconds: dict[str, float] | None = None) -> None:
    """Play ``states[i]`` for every ``i`` in ``games`` until the seat to move has no actor
    (``actor_of(i, seat)`` is None) or the game is over, one batched call per actor per round.
    ``seconds``, if given, accumulates the time each actor (by name) spent deciding."""
    pending = list(games)
    while pending:
        waiting: dict[Actor, list[int]] = defaultdict(list)
        for i in pending:
            seat = states[i].current_player
            if seat >= 0:
                actor = actor_of(i, seat)
                if actor is not None:
                    waiting[actor].append(i)
        for actor, group in waiting.items():
            start = time.perf_counter()
            actions = actor.act([states[i] for i in group])
            if seconds is not None:
                seconds[actor.name] = seconds.get(actor.name, 0.0) + time.perf_counter() - start
            for i, action in zip(group, actions):
                states[i].apply(int(action))  # checks legality: an opponent never plays a masked action
        pending = [i for group in waiting.values() for i in group]
