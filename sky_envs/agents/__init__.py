"""Agents that play any sky_envs game: baselines (random, greedy, MCTS) and ``make_agent``.

>>> agent = make_agent("mcts", simulations=100, seed=0)
>>> action = agent.act(env.last()[0], env.unwrapped.state)
"""

from __future__ import annotations

from typing import Any

from sky_envs.agents.base import Agent, random_legal
from sky_envs.agents.baselines import GreedyAgent, RandomAgent
from sky_envs.agents.mcts import MCTSAgent

BASELINES: dict[str, type[Agent]] = {"random": RandomAgent, "greedy": GreedyAgent, "mcts": MCTSAgent}


def make_agent(spec: str | Agent, seed: int | None = None, env_id: str | None = None, **kwargs: Any) -> Agent:
    """An agent from a name (``"random"``, ``"greedy"``, ``"mcts"``) or an Agent instance.

    ``env_id`` is the game the agent will play (checked by agents loaded from files).
    """
    if isinstance(spec, Agent):
        return spec
    if isinstance(spec, str) and spec in BASELINES:
        return BASELINES[spec](seed=seed, **kwargs)
    raise ValueError(f"unknown agent {spec!r}: expected one of {sorted(BASELINES)} or an Agent instance")


__all__ = ["Agent", "GreedyAgent", "MCTSAgent", "RandomAgent", "make_agent", "random_legal"]
