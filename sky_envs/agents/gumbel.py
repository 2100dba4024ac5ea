"""The arithmetic of Gumbel search (Danihelka et al., "Policy improvement by planning with
Gumbel", ICLR 2022; DeepMind's mctx): the sequential-halving schedule, completed Q-values,
their transform sigma and the improved policy. :class:`~sky_envs.agents.search.PUCTSearch`
with ``root="gumbel"`` searches with them.

* **Gumbel-top-k.** The root draws a Gumbel(0, 1) variable ``g(a)`` per legal action; the
  ``m = min(k, legal)`` actions with the largest ``g(a) + logits(a)`` are a sample without
  replacement from the network's policy, and the only ones the root visits.
* **Sequential halving** (:func:`halving_schedule`) spreads the budget over ``ceil(log2 m)``
  phases: phase ``j`` visits each of the ``m / 2^j`` remaining actions
  ``max(1, floor(n / (ceil(log2 m) * m / 2^j)))`` times, then keeps the better half by
  ``g + logits + sigma(q)``; once two actions remain they share what is left. Simulation
  ``i`` visits the best-scored action among those with exactly ``schedule[i]`` visits, so
  the budget is spent exactly (as in mctx).
* **Completed Q** (:func:`completed_q`): a visited action's mean value, an unvisited one's
  the mixed value ``(v + N * sum_visited(p q) / sum_visited(p)) / (1 + N)`` (the network's
  value ``v`` of the node mixed with what its visited moves are worth, Appendix D); proven
  values (the solver) replace both.
* **sigma** (:func:`sigma`): values live in [-1, 1] (a loss to a win), so ``q`` is first
  mapped to [0, 1], then ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``, with
  ``c_visit`` :data:`C_VISIT` = 50 and ``c_scale`` 1 as in the paper's board games.
* **The improved policy** (:func:`improved_policy`) ``softmax(logits + sigma(completed q))``
  over every legal action: the search's output policy (the training target of
  ``alphazero.policy_target: gumbel``) and, below the root, the deterministic selection
  ``argmax(pi'(a) - N(a) / (1 + sum_b N(b)))`` (:func:`interior_choice`), which makes the
  visit shares follow ``pi'``.

The final move is the best of the most visited actions by ``g + logits + sigma(q)``.
"""

from __future__ import annotations

import math

import numpy as np

#: ``c_visit`` of sigma: the weight of Q against the logits before any visit
C_VISIT = 50.0


def logits_of(prior: np.ndarray) -> np.ndarray:
    """Logits of a probability vector, up to a constant (a zero probability gets log of the
    smallest positive float, about -708, not -inf)."""
    return np.log(np.maximum(prior, np.finfo(np.float64).tiny))


def halving_schedule(considered: int, simulations: int) -> tuple[np.ndarray, list[int]]:
    """Sequential halving over ``considered`` actions with ``simulations`` simulations:
    for each simulation the visit count an action must have to be visited by it, and the
    simulations at which a phase (a block of visits to fewer actions) begins, after the first.

    With ``considered`` <= 1 the one action takes every simulation.
    """
    if considered <= 1:
        return np.arange(simulations), []
    phases = math.ceil(math.log2(considered))
    schedule: list[int] = []
    starts: list[int] = []
    visits, remaining = 0, considered
    while len(schedule) < simulations:
        if schedule:
            starts.append(len(schedule))
        for _ in range(max(1, simulations // (phases * remaining))):
            schedule.extend([visits] * remaining)
            visits += 1
        remaining = max(2, remaining // 2)
    return np.array(schedule[:simulations]), [s for s in starts if s < simulations]


def completed_q(prior: np.ndarray, value: float, visits: np.ndarray, value_sum: np.ndarray,
                solved: np.ndarray | None = None) -> np.ndarray:
    """Each action's value for the chooser: its mean where visited, the mixed value where
    not, its proven value where ``solved`` (not nan) has one."""
    visited = visits > 0
    q = value_sum / np.maximum(visits, 1)
    total = visits.sum()
    mixed = value
    if total > 0:
        weight = np.maximum(prior, np.finfo(np.float64).tiny) * visited
        mixed = (value + total * float((weight * q).sum() / weight.sum())) / (1 + total)
    completed = np.where(visited, q, mixed)
    if solved is not None:
        completed = np.where(np.isnan(solved), completed, solved)
    return completed


def sigma(q: np.ndarray, visits: np.ndarray, c_scale: float) -> np.ndarray:
    """``(c_visit + max_b N(b)) * c_scale * q``, ``q`` mapped from [-1, 1] to [0, 1]."""
    return (C_VISIT + visits.max()) * c_scale * (q + 1.0) / 2.0


def improved_policy(logits: np.ndarray, q: np.ndarray, visits: np.ndarray, c_scale: float) -> np.ndarray:
    """``softmax(logits + sigma(q))``, ``q`` the completed Q-values."""
    score = logits + sigma(q, visits, c_scale)
    score = np.exp(score - score.max())
    return score / score.sum()


def interior_choice(policy: np.ndarray, visits: np.ndarray, allowed: np.ndarray | None) -> int:
    """Below the root: the action whose visit share lags the improved policy the most."""
    score = policy - visits / (1.0 + visits.sum())
    if allowed is not None:
        score = np.where(allowed, score, -np.inf)
    return int(score.argmax())


def root_choice(score: np.ndarray, visits: np.ndarray, considered_visit: int, allowed: np.ndarray | None) -> int:
    """Sequential halving's next action: the best ``score`` (``g + logits + sigma(q)``)
    among those with ``considered_visit`` visits (and allowed in this world); where none is,
    the best allowed."""
    score = np.where(allowed, score, -np.inf) if allowed is not None else score
    candidates = np.where(visits == considered_visit, score, -np.inf)
    return int(candidates.argmax()) if np.isfinite(candidates).any() else int(score.argmax())
