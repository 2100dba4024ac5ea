"""The single-agent view of many games as a Gymnasium ``VectorEnv`` (Gymnasium 1.x API).

.. code-block:: python

    import gymnasium
    import sky_envs

    envs = gymnasium.make_vec("sky_envs/sky_scrapers-v0", num_envs=256,
                              vectorization_mode="vector_entry_point", opponent="greedy")
    observations, infos = envs.reset(seed=0)
    actions = envs.action_space.sample()          # one legal action per game
    observations, rewards, terminated, truncated, infos = envs.step(actions)
    masks = envs.action_masks()                   # (num_envs, num_actions) bool

The learner plays one seat in every game against ``opponent`` (any spec of
:class:`sky_envs.gym_env.SingleAgentEnv`); the games are a :class:`sky_envs.vector.VectorEnv`
and the opponents decide for all the games waiting on them in one batched call
(:class:`sky_envs.integrations.learner_slots.SingleAgentSlots`).

Autoreset is *same-step* (``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``):
the step that ends a game returns the next game's first observation, and the ended game's
last observation, seen by the learner, in ``infos["final_obs"]`` (where
``infos["_final_obs"]``), with ``infos["final_info"]["seat"]``. Every step's ``infos``
holds ``"action_mask"`` and ``"seat"`` (the learner's seat in each game). An illegal action
raises ``IllegalActionError`` naming the game, before any game moves: mask your policy.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from sky_envs.vector import random_actions
from .learner_slots import SingleAgentSlots


class LegalActionsSpace(spaces.MultiDiscrete):
    """``MultiDiscrete([num_actions] * num_envs)`` whose ``sample()`` without a mask draws one
    legal action per game (random-agent loops and checkers then play legal moves); an
    explicit ``mask`` is honoured as in ``MultiDiscrete``."""

    def __init__(self, num_envs: int, num_actions: int, env: SingleAgentVectorEnv):
        super().__init__(np.full(num_envs, num_actions, dtype=np.int64))
        self._env = weakref.ref(env)

    def sample(self, mask=None, probability=None):
        env = self._env() if self._env is not None else None
        if mask is None and probability is None and env is not None and env.slots.batch is not None:
            return random_actions(env.action_masks(), self.np_random)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_env"] = None  # a weak reference does not pickle
        return state


class SingleAgentVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``env_id``, the learner's seat in each; see the module docstring.

    ``opponent``, ``seat`` (``"rotate"``, ``"random"`` or an index), ``engine`` and
    ``positions``: :class:`~sky_envs.integrations.learner_slots.SingleAgentSlots`.
    ``options``: the env's options.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, env_id: str, num_envs: int = 1, opponent: Any = "random", seat: int | str = "rotate",
                 engine: str = "auto", positions: Sequence[str] | None = None, **options: Any):
        self.slots = SingleAgentSlots(env_id, num_envs, opponent=opponent, seat=seat, engine=engine,
                                      positions=positions, **options)
        game = self.slots.venv.game
        self.env_id = game.env_id
        self.num_envs = self.slots.venv.num_envs
        self.single_observation_space = spaces.Box(game.observation_low, game.observation_high,
                                                   shape=game.observation_shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = LegalActionsSpace(self.num_envs, game.num_actions, self)
        self._every = np.ones(self.num_envs, dtype=bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """New games in every slot: slot ``i``'s ``k``-th game is seeded ``seed + i + k * num_envs``."""
        super().reset(seed=seed)
        if options:
            raise ValueError(f"reset options are not supported by the vector view, got {sorted(options)}: "
                             "start games from positions with positions=[...] when making it")
        if seed is not None:
            self.action_space.seed(seed)
        self.slots.reset(seed)
        return self.slots.batch.observation.copy(), self._infos()

    def step(self, actions):
        slots = self.slots
        if slots.batch is None:
            raise RuntimeError("reset() needs to be called before step()")
        slots.step(actions)
        ended = slots.ended
        rewards = slots.learner_rewards()
        terminated = ended & ~slots.truncated
        infos = self._infos()
        if ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            for slot in np.flatnonzero(ended):
                final[slot] = slots.final_observation[slot].copy()
            infos["final_obs"], infos["_final_obs"] = final, ended.copy()
            infos["final_info"] = {"seat": slots.episode_seat.copy(), "_seat": ended.copy()}
            infos["_final_info"] = ended.copy()
        return slots.batch.observation.copy(), rewards, terminated, slots.truncated.copy(), infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, num_actions)`` bool."""
        if self.slots.batch is None:
            raise RuntimeError("reset() needs to be called before action_masks()")
        return self.slots.batch.action_mask.copy()

    def _infos(self) -> dict[str, Any]:
        return {"seat": self.slots.seat.copy(), "_seat": self._every.copy(),
                "action_mask": self.slots.batch.action_mask.copy(), "_action_mask": self._every.copy()}

    def __repr__(self) -> str:
        return f"SingleAgentVectorEnv({self.env_id}, num_envs={self.num_envs})"

