"""Batched decision makers for training: the actors of :mod:`sky_envs.integrations.actors`,
and :func:`advance`, which plays lists of ``GameState`` forward with them.

An *actor* chooses the moves of every game waiting on the same player in one call
(:class:`PolicyActor`: one network forward for all of them). The self-play collector
(:mod:`training.collector`) asks actors for moves over the batches of a
:class:`sky_envs.vector.VectorEnv`; the batched quick evaluations (:mod:`training.tournament`)
and expert iteration (:mod:`training.alphazero`) play plain states with :func:`advance`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence

from sky_envs.core.state import GameState
from sky_envs.integrations.actors import (Actor, AgentActor, PolicyActor, RandomActor, actor_for, observe_batch,
                                          sample_masked)

__all__ = ["Actor", "AgentActor", "PolicyActor", "RandomActor", "actor_for", "advance", "observe_batch",
           "sample_masked"]


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
