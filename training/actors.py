"""Batched decision makers for training: the actors of :mod:`sky_envs.integrations.actors`,
and :func:`advance`, which plays lists of ``GameState`` forward with them.

An *actor* chooses the moves of every game waiting on the same player in one call
(:class:`PolicyActor`: one network forward for all of them). The self-play collector
(:mod:`training.collector`) asks actors for moves over the batches of a
:class:`sky_envs.vector.VectorEnv`; the batched quick evaluations (:mod:`training.tournament`)
play the games of a fresh :class:`sky_envs.vector.VectorEnv` with :func:`advance_slots`, and
expert iteration (:mod:`training.alphazero`) plays plain states with :func:`advance`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from sky_envs.core.state import GameState
from sky_envs.integrations.actors import (Actor, AgentActor, PolicyActor, RandomActor, actor_for, observe_batch,
                                          sample_masked)

__all__ = ["Actor", "AgentActor", "PolicyActor", "RandomActor", "actor_for", "advance", "advance_slots",
           "observe_batch", "sample_masked"]


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


def advance_slots(venv, actor_of: Callable[[int, int], Actor | None]) -> np.ndarray:
    """Play the game in each slot of ``venv`` (a :class:`sky_envs.vector.VectorEnv` just
    reset) to its end, as :func:`advance` plays a list of states: the same rounds, each
    actor's slots in one ``act_on_slots`` call in the order ``advance`` asks for them, so the
    same moves and draws on the compiled engine without a ``GameState`` per game. A slot
    stops where ``actor_of(slot, seat)`` is None. Returns each game's returns,
    ``(num_envs, num_players)``: zeros where ``max_turns`` cut it (or it did not end)."""
    n = venv.num_envs
    seats, actions = venv.engine.current_player, np.zeros(n, dtype=np.int64)
    returns = np.zeros((n, venv.num_players))
    over = np.zeros(n, dtype=bool)
    pending = list(range(n))
    while pending:
        waiting: dict[Actor, list[int]] = defaultdict(list)
        for i in pending:
            if not over[i] and (actor := actor_of(i, int(seats[i]))) is not None:
                waiting[actor].append(i)
        for actor, group in waiting.items():
            slots = np.array(group, dtype=np.int64)
            actions[slots] = actor.act_on_slots(venv, slots)
            where = np.zeros(n, dtype=bool)
            where[slots] = True
            batch = venv.step(actions, where=where)
            ended = slots[(batch.terminated | batch.truncated)[slots]]
            over[ended] = True
            returns[ended] = batch.rewards[ended]   # zeros on a cut
        pending = [i for group in waiting.values() for i in group]
    return returns
