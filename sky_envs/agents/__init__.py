"""Agents that play any sky_envs game: baselines (random, greedy, MCTS, alpha-beta) and ``make_agent``.

>>> agent = make_agent("mcts", simulations=100, seed=0)
>>> action = agent.act(env.last()[0], env.unwrapped.game_state)
"""

from __future__ import annotations

import os
from typing import Any

from sky_envs.agents.alphabeta import AlphaBetaAgent
from sky_envs.agents.base import Agent, random_legal
from sky_envs.agents.baselines import GreedyAgent, RandomAgent
from sky_envs.agents.mcts import MCTSAgent
from sky_envs.agents.checkpoint import (Checkpoint, CheckpointError, checkpoint_symmetries, load_checkpoint,
                                        open_checkpoint, save_checkpoint)
from sky_envs.agents.policy import NetworkEvaluator, PolicyAgent, SearchAgent
from sky_envs.agents.search import ROOTS, PUCTSearch
from sky_envs.agents.solver import Solver, SolverAgent

BASELINES: dict[str, type[Agent]] = {"random": RandomAgent, "greedy": GreedyAgent, "mcts": MCTSAgent,
                                     "alphabeta": AlphaBetaAgent, "solver": SolverAgent}
#: what the number after '@' sets, per baseline that takes one
BUDGETS = {"mcts": "simulations", "alphabeta": "depth", "solver": "max_nodes"}


def split_spec(text: str) -> tuple[str, str]:
    """An agent spec's name or checkpoint path and its budget after '@': digits, for a
    checkpoint's search maybe followed by '+' and a search root (``"32+gumbel"``); ``""``
    where it has none (an '@' followed by anything else may be part of a path)."""
    base, _, budget = text.rpartition("@")
    digits, plus, root = budget.partition("+")
    if not base or not digits.isdigit() or plus and root not in ROOTS:
        return text, ""
    return base, budget


def make_agent(spec: str | Agent, seed: int | None = None, env_id: str | None = None,
               env_options: dict | None = None, search: int | None = None, **kwargs: Any) -> Agent:
    """An agent from a spec:

    * a baseline name: ``"random"``, ``"greedy"``, ``"mcts"``, ``"alphabeta"`` (``kwargs`` go
      to its class, e.g. ``simulations=400``), ``"mcts@400"`` (400 simulations) or
      ``"alphabeta@3"`` (three plies deep; two-seat games), ``"solver"`` / ``"solver@N"`` (exact
      solutions within N nodes per move, else alpha-beta; two-seat perfect-information games);
    * a checkpoint path (a ``.pt`` file; ``env_id`` and ``env_options`` are checked against
      it): the raw policy, or with ``search=N`` (or the spec ``"policy.pt@N"``) PUCT search
      with ``N`` simulations guided by the policy (:class:`SearchAgent`; ``kwargs`` go to
      it, and the checkpoint's recorded ``search`` settings, e.g. ``rollout_weight``, are
      the defaults); ``"policy.pt@N+gumbel"`` searches with the Gumbel root
      (``"policy.pt@N+puct"`` with PUCT's, whatever the checkpoint records);
    * a :class:`Checkpoint` already loaded (:func:`open_checkpoint`): the same agents, sharing
      its network and game (``env_id`` and ``env_options`` were checked when it was opened);
    * ``"pretrained"`` (``"pretrained@N"``): the checkpoint shipped for ``env_id`` that plays
      ``env_options``, as a path;
    * an :class:`Agent`, returned as it is.
    """
    if isinstance(spec, Agent):
        return spec
    if isinstance(spec, Checkpoint):
        return _checkpoint_agent(spec, search, seed, kwargs)
    if not isinstance(spec, (str, os.PathLike)):
        raise ValueError(f"unknown agent {spec!r}: expected a baseline name, a checkpoint path or an Agent")
    text = str(spec)
    base, budget = split_spec(text)
    budget, _, root = budget.partition("+")
    if budget:
        if int(budget) < 1:
            raise ValueError(f"agent spec {text!r}: the part after '@' must be a positive number "
                             "(a simulation count, or alphabeta's depth)")
        if search is not None and search != int(budget):
            raise ValueError(f"agent spec {text!r} and search={search} disagree")
        search = int(budget)
    if base == "pretrained":  # the network shipped for env_id (sky_envs.agents.pretrained)
        from sky_envs.agents.pretrained import pretrained_path

        base = str(pretrained_path(env_id, env_options))
    if root:
        kwargs["root"] = root
    if base in BASELINES:
        if root:
            raise ValueError(f"agent spec {text!r}: a search root ('+{root}') is for a checkpoint's search, "
                             f"not for {base}")
        if search is not None:
            if base not in BUDGETS:
                raise ValueError(f"agent spec {text!r}: only {' and '.join(sorted(BUDGETS))} (a budget) and "
                                 "checkpoints (a simulation count) take a number after '@'")
            kwargs[BUDGETS[base]] = search
        return BASELINES[base](seed=seed, **kwargs)
    if base.endswith(".pt"):
        return _checkpoint_agent(open_checkpoint(base, env_id, env_options), search, seed, kwargs)
    raise ValueError(f"unknown agent {text!r}: expected one of {sorted(BASELINES)} (mcts@N, alphabeta@N for a budget), "
                     "'pretrained' (pretrained@N), a checkpoint path ending in .pt (policy.pt@N for search, policy.pt@N+gumbel "
                     "with the Gumbel root), or an Agent instance")


def _checkpoint_agent(checkpoint: Checkpoint, search: int | None, seed: int | None, kwargs: dict) -> Agent:
    """The raw policy of ``checkpoint``, or with ``search`` simulations its PUCT search."""
    if search is None:
        return PolicyAgent.from_checkpoint(checkpoint, seed=seed, **kwargs)
    return SearchAgent.from_checkpoint(checkpoint, search, seed=seed, **kwargs)


__all__ = ["BASELINES", "AlphaBetaAgent", "Agent", "Checkpoint", "CheckpointError", "GreedyAgent", "MCTSAgent",
           "NetworkEvaluator", "PUCTSearch", "PolicyAgent", "RandomAgent", "SearchAgent", "Solver", "SolverAgent", "checkpoint_symmetries",
           "load_checkpoint", "make_agent", "open_checkpoint", "random_legal", "save_checkpoint", "split_spec"]
