"""Ray RLlib, the scale-out path: a turn-based ``MultiAgentEnv`` and a masked RLModule that
is a project network, so that a policy trained on a Ray cluster exports to the project's
weights-only ``.pt`` checkpoint and plays like any other (``make_agent``, the evaluation CLI,
the Gymnasium view). Needs ``pip install "sky_envs[rllib]"``.

* :class:`SkyMultiAgentEnv`: ``env_config = {"env_id": ..., "options": {...}}``. Only the
  seat to decide gets an observation, a dict ``{"observations": float32 tensor,
  "action_mask": float32 0/1 vector}``: the keys and dtypes of RLlib's action-masking
  RLModule (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``). When the game
  ends every seat gets its last observation and reward. Like ``env()``, an illegal action
  (RLlib's env pre-check steps an unmasked sample) ends the game with -1 for the mover.
  ``flatten=True`` gives flat observations, which RLlib's default encoders (MLPs) accept
  for every game; board games otherwise have channels-last boards ``(rows, cols, planes)``
  that RLlib's default CNN encoder only takes with explicit ``conv_filters``.
* :class:`ProjectNetworkModule`: an RLModule whose torch network *is* sb3-contrib's
  ``MaskableActorCriticPolicy`` built from a project network spec
  (:mod:`sky_envs.agents.network`, ``model_config={"network": spec}``), masked like
  RLlib's action-masking module (illegal logits pushed to the float minimum). Any spec
  works, ``resnet`` included: no RLlib encoder configuration per game is needed.
* :func:`export_checkpoint`: the module's weights into a project checkpoint file.
* :func:`masked_observation_space`: a seat's observation space in that form, for envs of
  one's own on the State protocol (``training.league`` builds its league games on it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

import sky_envs
from sky_envs.agents.checkpoint import policy_metadata, save_checkpoint
from sky_envs.agents.network import DEFAULTS, build_policy, forward, game_layout, normalize_spec

OBSERVATIONS, ACTION_MASK = "observations", "action_mask"
ENV_CONFIG_KEYS = ("env_id", "options", "flatten")


def masked_observation_space(game, flatten: bool = False) -> spaces.Dict:
    """The observation space of a seat of ``game`` as RLlib's masked modules read it:
    ``{"observations": the game's tensor (flat with ``flatten``), "action_mask": 0/1 float32}``."""
    shape = (int(np.prod(game.observation_shape)),) if flatten else tuple(game.observation_shape)
    low, high = (np.broadcast_to(np.asarray(bound, dtype=np.float32), game.observation_shape).reshape(shape)
                 for bound in (game.observation_low, game.observation_high))
    return spaces.Dict({OBSERVATIONS: spaces.Box(low, high, dtype=np.float32),
                        ACTION_MASK: spaces.Box(0.0, 1.0, (game.num_actions,), np.float32)})


class SkyMultiAgentEnv(MultiAgentEnv):
    """A sky_envs game as RLlib's turn-based ``MultiAgentEnv`` (see the module docstring)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        unknown = set(config) - set(ENV_CONFIG_KEYS)
        if unknown or "env_id" not in config:
            raise ValueError(f"SkyMultiAgentEnv's config needs 'env_id' and may have {list(ENV_CONFIG_KEYS[1:])}; "
                             f"got keys {sorted(config)}")
        self.env_id = config["env_id"]
        self.options = dict(config.get("options") or {})
        self.flatten = bool(config.get("flatten", False))
        self.env = sky_envs.make(self.env_id, **self.options)
        game = self.env.unwrapped.game
        observation_space = masked_observation_space(game, self.flatten)
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(game.num_actions) for agent in self.possible_agents}
        self._shape = observation_space[OBSERVATIONS].shape

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = self.env.observe(agent)
        return {OBSERVATIONS: observation["observation"].reshape(self._shape),
                ACTION_MASK: observation["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        agent = self.env.agent_selection
        return {agent: self._observe(agent)}, {agent: self.env.infos[agent]}

    def step(self, action_dict: dict):
        env = self.env
        agent = env.agent_selection
        if agent not in action_dict:
            raise ValueError(f"it is {agent}'s turn, but the actions are for {sorted(action_dict)}")
        env.step(int(action_dict[agent]))
        observations, rewards, terminateds, truncateds, infos = {}, {}, {}, {}, {}
        # like RLlib's own PettingZooEnv: at the end every seat takes its dead step and
        # gets its last observation and reward; otherwise only the seat to decide
        while env.agents:
            _, reward, terminated, truncated, info = env.last()
            agent = env.agent_selection
            observations[agent] = self._observe(agent)
            rewards[agent], terminateds[agent], truncateds[agent], infos[agent] = float(reward), terminated, truncated, info
            if not (terminated or truncated):
                break
            env.step(None)
        over = not env.agents
        terminateds["__all__"] = over and all(terminateds.values())
        truncateds["__all__"] = over and not terminateds["__all__"]
        return observations, rewards, terminateds, truncateds, infos


class ProjectNetworkModule(TorchRLModule, ValueFunctionAPI):
    """A masked PPO RLModule whose network is a project ``MaskableActorCriticPolicy``.

    ``model_config={"network": spec}`` (default: the ``mlp`` spec's defaults; a spec with a
    pairs policy head also needs ``"action_cells": game.action_cells``, a moves head
    ``"stack_moves": game.stack_moves``). The module's
    ``policy`` attribute is that SB3 policy: its logits before masking are exactly what a
    checkpoint exported by :func:`export_checkpoint` gives the project's agents.
    """

    def setup(self):
        space = self.observation_space
        if not isinstance(space, spaces.Dict) or set(space.spaces) != {OBSERVATIONS, ACTION_MASK}:
            raise ValueError(f"ProjectNetworkModule needs Dict observations with keys '{OBSERVATIONS}' and "
                             f"'{ACTION_MASK}' (SkyMultiAgentEnv's), got {space}")
        config = self.model_config or {}
        self.network_spec = normalize_spec(config.get("network", {"kind": "mlp", **DEFAULTS["mlp"]}))
        self.policy = build_policy(self.network_spec, space[OBSERVATIONS].shape, self.action_space.n,
                                   action_cells=config.get("action_cells"), stack_moves=config.get("stack_moves"))

    def _forward(self, batch: dict, **kwargs) -> dict:
        observation = batch[Columns.OBS]
        logits, values = forward(self.policy, observation[OBSERVATIONS])
        # RLlib's action-masking module adds clamp(log(mask), FLOAT_MIN): the same logits
        logits = logits + torch.clamp(torch.log(observation[ACTION_MASK]), min=FLOAT_MIN)
        # the "embeddings" RLlib hands back to compute_values are the values themselves
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: values}

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = forward(self.policy, batch[Columns.OBS][OBSERVATIONS])[1]
        return embeddings


def export_checkpoint(module: ProjectNetworkModule, path: str | os.PathLike, env_id: str,
                      options: dict | None = None, **training: Any) -> Path:
    """Write ``module``'s network as a project checkpoint for ``env_id`` with ``options``:
    its weights are copied into a policy built for the game's own observation shape
    (``load_state_dict`` checks that every name and shape matches), then saved with
    :func:`~sky_envs.agents.checkpoint.save_checkpoint`. ``training`` goes into the metadata."""
    options = dict(options or {})
    game = sky_envs.make_game(env_id, **options)
    policy = build_policy(module.network_spec, game.observation_shape, game.num_actions, **game_layout(game))
    policy.load_state_dict(module.policy.state_dict())
    return save_checkpoint(path, policy, policy_metadata(game, options, module.network_spec, **training))
