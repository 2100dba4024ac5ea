"""Observation wrappers that keep the action mask: what SuperSuit cannot do with dict
observations. Each changes only ``observation["observation"]`` (and its space); the
``action_mask`` passes through untouched, and so do rewards, infos and ``state()``.

>>> from sky_envs.wrappers import FlattenObservation, FrameStackObservation, RenameObservationKey
>>> env = RenameObservationKey(FrameStackObservation(FlattenObservation(sky_envs.make("scala_v0")), 4), "observations")

* :class:`FlattenObservation`: the observation as a flat vector (MLP encoders).
* :class:`FrameStackObservation`: the last ``stack`` observations of each agent (one taken
  after ``reset`` and after every step, as that agent sees the position), concatenated
  along the last axis, oldest first; zeros stand for the frames before ``reset``.
* :class:`RenameObservationKey`: ``"observation"`` renamed (e.g. ``"observations"``,
  the key RLlib's action-masking RLModule reads).
"""

from __future__ import annotations

from collections import deque

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

OBSERVATION, ACTION_MASK = "observation", "action_mask"


class _ObservationWrapper(BaseWrapper):
    """Transforms ``observation["observation"]`` with :meth:`transform`, in a new Box space."""

    key = OBSERVATION

    def __init__(self, env):
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        if not isinstance(inner, spaces.Dict) or set(inner.spaces) != {OBSERVATION, ACTION_MASK}:
            raise ValueError(f"{type(self).__name__} wraps envs whose observations are dicts with keys "
                             f"'{OBSERVATION}' and '{ACTION_MASK}' (sky_envs' own), got {inner}")
        box = inner[OBSERVATION]
        self._space = spaces.Dict({self.key: self.transform_space(box), ACTION_MASK: inner[ACTION_MASK]})
        self.observation_spaces = {agent: self._space for agent in env.possible_agents}

    def transform_space(self, box: spaces.Box) -> spaces.Box:
        return box

    def transform(self, observation: np.ndarray, agent: str) -> np.ndarray:
        return observation

    def observation_space(self, agent: str) -> spaces.Space:
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        inner = self.env.observe(agent)
        return {self.key: self.transform(inner[OBSERVATION], agent), ACTION_MASK: inner[ACTION_MASK]}


class FlattenObservation(_ObservationWrapper):
    """The observation as a flat float32 vector (C order)."""

    def transform_space(self, box: spaces.Box) -> spaces.Box:
        return spaces.Box(box.low.reshape(-1), box.high.reshape(-1), dtype=box.dtype)

    def transform(self, observation: np.ndarray, agent: str) -> np.ndarray:
        return observation.reshape(-1)


class FrameStackObservation(_ObservationWrapper):
    """The last ``stack`` observations of each agent along the last axis, oldest first."""

    def __init__(self, env, stack: int = 4):
        if isinstance(stack, bool) or not isinstance(stack, int) or stack < 1:
            raise ValueError(f"stack must be a positive integer (frames kept), got {stack!r}")
        self.stack = stack
        super().__init__(env)
        self._frames: dict[str, deque] = {}

    def transform_space(self, box: spaces.Box) -> spaces.Box:
        low = np.concatenate([box.low] * self.stack, axis=-1)
        high = np.concatenate([box.high] * self.stack, axis=-1)
        return spaces.Box(low, high, dtype=box.dtype)

    def _record(self) -> None:
        for agent in self.env.agents:
            self._frames[agent].append(self.env.observe(agent)[OBSERVATION])

    def reset(self, seed=None, options=None) -> None:
        self.env.reset(seed=seed, options=options)
        shape = self.env.observation_space(self.env.possible_agents[0])[OBSERVATION].shape
        blank = np.zeros(shape, dtype=np.float32)
        self._frames = {agent: deque([blank] * self.stack, maxlen=self.stack) for agent in self.env.possible_agents}
        self._record()

    def step(self, action) -> None:
        self.env.step(action)
        self._record()

    def transform(self, observation: np.ndarray, agent: str) -> np.ndarray:
        if agent not in self._frames:
            raise AssertionError("reset() needs to be called before observe.")
        return np.concatenate(self._frames[agent], axis=-1)


class RenameObservationKey(_ObservationWrapper):
    """``"observation"`` renamed to ``name``; the ``"action_mask"`` key stays."""

    def __init__(self, env, name: str = "observations"):
        if not isinstance(name, str) or name in ("", ACTION_MASK):
            raise ValueError(f"the new observation key must be a non-empty string other than '{ACTION_MASK}', got {name!r}")
        self.key = name
        super().__init__(env)


__all__ = ["FlattenObservation", "FrameStackObservation", "RenameObservationKey"]
