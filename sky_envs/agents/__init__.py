"""Agents that play any sky_envs game: baselines (random, greedy, MCTS) and ``make_agent``.

>>> agent = make_agent("mcts", simulations=100, seed=0)
>>> action = agent.act(env.last()[0], env.unwrapped.game_state)
"""

from __future__ import annotations

import os
from typing import Any

from sky_envs.agents.base import Agent, random_legal
from sky_envs.agents.baselines import GreedyAgent, RandomAgent
from sky_envs.agents.mcts import MCTSAgent
from sky_envs.agents.policy import PolicyAgent, load_checkpoint, save_checkpoint

BASELINES: dict[str, type[Agent]] = {"random": RandomAgent, "greedy": GreedyAgent, "mcts": MCTSAgent}


def make_agent(spec: str | Agent, seed: int | None = None, env_id: str | None = None,
               env_options: dict | None = None, **kwargs: Any) -> Agent:
    """An agent from a name (``"random"``, ``"greedy"``, ``"mcts"``), a checkpoint path
    (a ``.pt`` file; ``env_id`` and ``env_options`` are checked against it) or an Agent.
    """
    if isinstance(spec, Agent):
        return spec
    if isinstance(spec, str) and spec in BASELINES:
        return BASELINES[spec](seed=seed, **kwargs)
    if isinstance(spec, (str, os.PathLike)) and str(spec).endswith(".pt"):
        return PolicyAgent.load(spec, env_id=env_id, env_options=env_options, seed=seed, **kwargs)
    raise ValueError(f"unknown agent {spec!r}: expected one of {sorted(BASELINES)}, a checkpoint path "
                     "ending in .pt, or an Agent instance")


__all__ = ["Agent", "GreedyAgent", "MCTSAgent", "PolicyAgent", "RandomAgent", "load_checkpoint", "make_agent",
           "random_legal", "save_checkpoint"]
