"""Trained networks as agents: the batched network calls (:class:`NetworkEvaluator`), the
raw policy (:class:`PolicyAgent`) and search guided by it (:class:`SearchAgent`: PUCT, or
the Gumbel root).

Checkpoint files are described in :mod:`sky_envs.agents.checkpoint`, networks in
:mod:`sky_envs.agents.network`, the search algorithm in :mod:`sky_envs.agents.search` (which
needs only an evaluator, not a network).
"""

from __future__ import annotations

import os

import numpy as np

from sky_envs.agents.base import Agent
from sky_envs.agents.checkpoint import Checkpoint, open_checkpoint
from sky_envs.agents.network import masked_forward
from sky_envs.agents.search import PUCTSearch, recorded_settings
from sky_envs.core.state import GameState


class NetworkEvaluator:
    """Priors and values of a ``MaskableActorCriticPolicy`` for a batch of positions.

    ``evaluator(observations, masks)`` -> ``(probabilities, values)``: the policy's
    distribution over the legal actions (``masks`` true) and its value estimate, for
    the seat each observation belongs to (:func:`~sky_envs.agents.network.masked_forward`).

    With ``symmetries`` (:class:`~sky_envs.core.symmetry.BoardSymmetries`) the network sees
    every position in each of the board's symmetric views, in the same batch, and the
    evaluator gives the mean of its log-probabilities (mapped back to the position's
    actions) and of its values: a network whose choices are exactly symmetric.
    """

    def __init__(self, policy, symmetries=None):
        self.policy = policy
        self.symmetries = symmetries

    def logits_and_values(self, observations: np.ndarray, masks: np.ndarray, values: bool = True):
        """Masked logits (``-inf`` where illegal) and values, as torch tensors; with
        ``values=False`` the values are None and the value side of the network is not run
        (the logits are the same)."""
        if self.symmetries is None:
            return self._forward(observations, masks, values)
        import torch

        symmetries, n = self.symmetries, len(observations)
        which = np.tile(np.arange(len(symmetries)), n)
        views, view_masks = symmetries.transform(which, np.repeat(np.asarray(observations, dtype=np.float32), len(symmetries), 0),
                                                 np.repeat(np.asarray(masks, dtype=bool), len(symmetries), 0))
        logits, view_values = self._forward(views, view_masks, values)
        # view k's action actions[s, a] is the position's action a
        back = torch.log_softmax(logits, dim=1).gather(1, torch.as_tensor(symmetries.actions[which]))
        return (back.reshape(n, len(symmetries), -1).mean(dim=1),
                None if view_values is None else view_values.reshape(n, -1).mean(dim=1))

    def masked_logits(self, observations: np.ndarray, masks: np.ndarray):
        """The masked logits of :meth:`logits_and_values` alone (the value side not run)."""
        return self.logits_and_values(observations, masks, values=False)[0]

    def _forward(self, observations: np.ndarray, masks: np.ndarray, values: bool = True):
        import torch

        with torch.no_grad():
            x = torch.as_tensor(np.asarray(observations, dtype=np.float32))
            return masked_forward(self.policy, x, np.asarray(masks, dtype=bool), values)

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        import torch

        logits, values = self.logits_and_values(observations, masks)
        return torch.softmax(logits, dim=1).numpy(), values.clamp(-1.0, 1.0).numpy()


class PolicyAgent(Agent):
    """Plays a trained policy: the most likely legal action (or a sample with
    ``deterministic=False``). Build it from a checkpoint file with :meth:`load`, or around
    a live policy (self-play)."""

    name = "policy"

    def __init__(self, policy, metadata: dict | None = None, deterministic: bool = True, seed: int | None = None,
                 symmetries=None):
        super().__init__(seed)
        self.policy = policy
        self.evaluator = NetworkEvaluator(policy, symmetries)
        self.metadata = metadata or {}
        self.deterministic = deterministic

    @classmethod
    def load(cls, path: str | os.PathLike, env_id: str | None = None, env_options: dict | None = None,
             deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
        return cls.from_checkpoint(open_checkpoint(path, env_id, env_options), deterministic, seed)

    @classmethod
    def from_checkpoint(cls, checkpoint: Checkpoint, deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
        """The raw policy of a loaded checkpoint, named after its file."""
        agent = cls(checkpoint.policy, checkpoint.metadata, deterministic, seed, checkpoint.symmetries)
        agent.name = checkpoint.path.stem
        return agent

    def act(self, observation: dict, state: GameState | None = None) -> int:
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if not mask.any():
            raise ValueError("the action mask has no legal action: this seat has no decision to make")
        obs = np.asarray(observation["observation"], dtype=np.float32)[None]
        if self.deterministic:
            action = int(self.evaluator.masked_logits(obs, mask[None])[0].argmax())
        else:
            probabilities, _ = self.evaluator(obs, mask[None])
            p = probabilities[0].astype(np.float64)
            action = int(self.rng.choice(p.size, p=p / p.sum()))
        if not mask[action]:  # masked logits make this impossible; never hand back an illegal move
            raise RuntimeError(f"policy chose illegal action {action}")
        return action


class SearchAgent(Agent):
    """Search with a trained policy: after ``simulations`` simulations, the most visited
    action with the PUCT root, or the Gumbel root's choice with ``root="gumbel"``
    (:mod:`~sky_envs.agents.search`; ``gumbel_k``, ``gumbel_scale`` and ``c_scale`` are its
    settings). An agent plays to win, so by default its Gumbel root draws no noise
    (``gumbel_scale`` 0: it considers the ``gumbel_k`` likeliest moves, as mctx advises for
    evaluation); self-play training draws it (:class:`~sky_envs.agents.search.PUCTSearch`'s default).

    ``leaves_per_call`` leaves are evaluated per network call (virtual loss): one call of
    a small network costs about as much for 8 positions as for 1.
    """

    name = "search"
    needs_state = True

    def __init__(self, policy, metadata: dict | None = None, simulations: int = 200, c_puct: float = 1.5,
                 leaves_per_call: int = 8, rollout_weight: float = 0.0, rollout_policy: str = "random",
                 solver: bool = False, seed: int | None = None, symmetries=None, root: str = "puct",
                 gumbel_k: int = 16, gumbel_scale: float = 0.0, c_scale: float = 1.0, exact_nodes: int = 0):
        super().__init__(seed)
        self.metadata = metadata or {}
        self.search = PUCTSearch(NetworkEvaluator(policy, symmetries), simulations, c_puct, rng=self.rng,
                                 leaves_per_call=leaves_per_call, rollout_weight=rollout_weight,
                                 rollout_policy=rollout_policy, solver=solver, root=root, gumbel_k=gumbel_k,
                                 gumbel_scale=gumbel_scale, c_scale=c_scale, exact_nodes=exact_nodes)

    @classmethod
    def from_checkpoint(cls, checkpoint: Checkpoint, simulations: int, seed: int | None = None,
                        **settings) -> SearchAgent:
        """Search with ``simulations`` guided by a loaded checkpoint's network, named
        ``<file>@<simulations>`` (``<file>@<simulations>+<root>`` where ``settings`` name the
        root): the checkpoint's recorded ``search`` settings (e.g. ``rollout_weight``; with
        the Gumbel root those it records for it, :func:`~sky_envs.agents.search.recorded_settings`)
        are the defaults of ``settings``."""
        suffix = f"+{settings['root']}" if "root" in settings else ""
        settings = {**recorded_settings(checkpoint.metadata.get("search", {}), settings.get("root")), **settings}
        agent = cls(checkpoint.policy, checkpoint.metadata, simulations=simulations, seed=seed,
                    symmetries=checkpoint.symmetries, **settings)
        agent.name = f"{checkpoint.path.stem}@{simulations}{suffix}"
        return agent

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.search.rng = self.rng

    def act(self, observation: dict, state: GameState | None = None) -> int:
        state = self._require_state(state)
        result, = self.search.run([state])
        if result.action is not None:
            return result.action
        best = np.flatnonzero(result.visits == result.visits.max())
        return int(result.actions[best[self.rng.integers(best.size)]])
