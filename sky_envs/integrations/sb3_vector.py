"""The single-agent view of many games as a Stable-Baselines3 ``VecEnv``, for sb3-contrib's MaskablePPO.

.. code-block:: python

    from sb3_contrib import MaskablePPO
    from sky_envs.integrations.sb3_vector import SingleAgentVecEnv

    env = SingleAgentVecEnv("sky_scrapers_v0", num_envs=64, opponent="greedy")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, seed=0)
    model.learn(100_000)

The learner plays one seat in every game against ``opponent`` (any spec of
:class:`sky_envs.gym_env.SingleAgentEnv`), the opponents batched over the games
(:class:`sky_envs.integrations.learner_slots.SingleAgentSlots`). MaskablePPO reads the legal
actions through ``env_method("action_masks")``. A game that ends is replaced at once, as
SB3 expects: its last observation (the learner's view) is ``infos[i]["terminal_observation"]``,
and ``infos[i]["TimeLimit.truncated"]`` says whether ``max_turns`` cut it (MaskablePPO then
bootstraps from that observation's value). Wrap it in SB3's ``VecMonitor`` for episode
statistics.

:class:`MaskableVecEnv` is the plumbing every VecEnv of this project shares (the
self-play collector's too): one object holds all the games, so attribute queries answer for
all of them and ``action_masks`` is the only method the games have.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from .learner_slots import SingleAgentSlots


class MaskableVecEnv(VecEnv):
    """A ``VecEnv`` whose games live in one object and answer ``action_masks()``, the method
    MaskablePPO calls through ``env_method``. Subclasses implement ``action_masks``."""

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, num_actions)`` bool."""
        raise NotImplementedError

    def _indices(self, indices) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices=None) -> list:
        value = None if attr_name == "render_mode" else getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"these games have no settable attribute {attr_name!r}")

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        if method_name != "action_masks":
            raise AttributeError(f"these games have no method {method_name!r}: only action_masks")
        masks = self.action_masks()
        return list(masks if indices is None else masks[self._indices(indices)])   # every game's: no copy

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))


class SingleAgentVecEnv(MaskableVecEnv):
    """``num_envs`` games of ``env_id``, the learner's seat in each; see the module docstring.

    ``opponent``, ``seat`` (``"rotate"``, ``"random"`` or an index), ``engine`` and
    ``positions``: :class:`~sky_envs.integrations.learner_slots.SingleAgentSlots`; ``options``:
    the env's options. ``seed`` (or SB3's ``seed()``, which the model calls) seeds the next
    ``reset``: slot ``i``'s ``k``-th game is seeded ``seed + i + k * num_envs``.
    """

    def __init__(self, env_id: str, num_envs: int = 1, opponent: Any = "random", seat: int | str = "rotate",
                 engine: str = "auto", seed: int | None = None, positions: Sequence[str] | None = None,
                 **options: Any):
        self.slots = SingleAgentSlots(env_id, num_envs, opponent=opponent, seat=seat, engine=engine,
                                      positions=positions, **options)
        game = self.slots.venv.game
        self.env_id = game.env_id
        observation_space = spaces.Box(game.observation_low, game.observation_high, shape=game.observation_shape,
                                       dtype=np.float32)
        super().__init__(self.slots.venv.num_envs, observation_space, spaces.Discrete(game.num_actions))
        if seed is not None:
            self.seed(seed)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]   # seed(s) gives slot i the seed s + i: the vector rule's first games
        self._reset_seeds()
        self.slots.reset(seed)
        return self.slots.batch.observation.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(-1)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        if self.slots.batch is None:
            raise RuntimeError("reset() needs to be called before step()")
        actions, self._actions = self._actions, None
        slots = self.slots
        slots.step(actions)
        ended = slots.ended
        rewards = slots.learner_rewards()
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for slot in np.flatnonzero(ended):
            infos[slot] = {"terminal_observation": slots.final_observation[slot].copy(),
                           "TimeLimit.truncated": bool(slots.truncated[slot]),
                           "seat": int(slots.episode_seat[slot])}
        return slots.batch.observation.copy(), rewards, ended.copy(), infos

    def action_masks(self) -> np.ndarray:
        if self.slots.batch is None:
            raise RuntimeError("reset() needs to be called before action_masks()")
        return self.slots.batch.action_mask.copy()

    def close(self) -> None:
        pass
