"""Trained policies as agents, and the checkpoint file format that carries them.

A checkpoint is one ``.pt`` file written by :func:`save_checkpoint`: a dict of plain data
(``format``, ``metadata``) and tensors (``state_dict``), read back with
``torch.load(weights_only=True)``, so loading one never runs code stored in it. The
metadata names the env id and options, the observation and action shapes, the network
(``net_arch``, ``activation``), training steps and rating, and a SHA-256 of the weights;
:func:`load_checkpoint` checks all of it against the env it is loaded for and refuses a
file that is truncated, tampered with or made for another game, with a message saying so.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from sky_envs.agents.base import Agent
from sky_envs.core.state import GameState

FORMAT = "sky_envs.policy/1"
ACTIVATIONS = ("tanh", "relu")
REQUIRED = ("env_id", "env_options", "observation_shape", "num_actions", "net_arch", "activation")


def weights_digest(state_dict: dict) -> str:
    """SHA-256 over every tensor's name, shape, dtype and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        digest.update(f"{name}:{tuple(tensor.shape)}:{tensor.dtype}".encode())
        digest.update(tensor.numpy().tobytes())
    return digest.hexdigest()


def policy_kwargs(net_arch, activation: str) -> dict:
    """MaskablePPO ``policy_kwargs`` for a network description (as stored in checkpoints).

    Inputs go through ``log1p``: observations are raw counts (stack heights, cards) whose
    range differs between games and channels, and log-scaling them keeps every input near
    the unit range without per-game constants.
    """
    import torch

    from sky_envs.agents.features import Log1pFlatten

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation!r} is not supported: expected one of {ACTIVATIONS}")
    return {"net_arch": list(net_arch), "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation],
            "features_extractor_class": Log1pFlatten}


def build_policy(observation_shape, num_actions: int, net_arch, activation: str, low=0.0, high=np.inf):
    """The MaskablePPO actor-critic network for these shapes (untrained)."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    observation_space = spaces.Box(low, high, shape=tuple(observation_shape), dtype=np.float32)
    return MaskableActorCriticPolicy(observation_space, spaces.Discrete(num_actions), lambda _: 0.0,
                                     **policy_kwargs(net_arch, activation))


def save_checkpoint(path: str | os.PathLike, policy, metadata: dict[str, Any]) -> Path:
    """Write ``policy``'s weights and ``metadata`` to ``path`` atomically (temp file + rename)."""
    import torch

    missing = [key for key in REQUIRED if key not in metadata]
    if missing:
        raise ValueError(f"checkpoint metadata misses {missing}")
    state_dict = {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}
    metadata = dict(metadata, weights_sha256=weights_digest(state_dict))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        torch.save({"format": FORMAT, "metadata": metadata, "state_dict": state_dict}, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def load_checkpoint(path: str | os.PathLike, env_id: str | None = None,
                    env_options: dict | None = None) -> tuple[Any, dict]:
    """``(policy, metadata)`` from a checkpoint file, checked as the module docstring says.

    With ``env_id`` (and optionally ``env_options``) the checkpoint must be for that env,
    with the observation and action shapes that env has.
    """
    import pickle
    import zipfile

    import torch

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {str(path)!r} does not exist (expected a .pt file written by sky_envs)")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        raise ValueError(f"checkpoint {str(path)!r} was refused: it holds objects other than weights and plain "
                         f"data, which sky_envs never writes ({error})") from None
    except (RuntimeError, EOFError, zipfile.BadZipFile, OSError, ValueError) as error:
        raise ValueError(f"checkpoint {str(path)!r} is damaged or truncated: {error}") from None
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a sky_envs policy checkpoint (expected format {FORMAT!r})")
    metadata, state_dict = blob.get("metadata"), blob.get("state_dict")
    if not isinstance(metadata, dict) or not isinstance(state_dict, dict):
        raise ValueError(f"checkpoint {str(path)!r} is damaged: metadata or weights are missing")
    missing = [key for key in REQUIRED if key not in metadata]
    if missing:
        raise ValueError(f"checkpoint {str(path)!r} is damaged: its metadata misses {missing}")
    if weights_digest(state_dict) != metadata.get("weights_sha256"):
        raise ValueError(f"checkpoint {str(path)!r} was tampered with or corrupted: its weights do not match "
                         "the SHA-256 recorded when it was saved")
    if env_id is not None:
        _check_env(path, metadata, env_id, env_options)
    policy = build_policy(metadata["observation_shape"], metadata["num_actions"],
                          metadata["net_arch"], metadata["activation"])
    try:
        policy.load_state_dict(state_dict)
    except RuntimeError as error:
        raise ValueError(f"checkpoint {str(path)!r} does not fit its own network description: {error}") from None
    policy.set_training_mode(False)
    return policy, metadata


def _check_env(path: Path, metadata: dict, env_id: str, env_options: dict | None) -> None:
    from sky_envs.core.registry import canonical_id, make_game

    if canonical_id(metadata["env_id"]) != canonical_id(env_id):
        raise ValueError(f"checkpoint {str(path)!r} is a {metadata['env_id']} policy, not one for {canonical_id(env_id)}")
    options = metadata["env_options"] if env_options is None else env_options
    game = make_game(env_id, **options)
    if tuple(metadata["observation_shape"]) != tuple(game.observation_shape) or metadata["num_actions"] != game.num_actions:
        raise ValueError(
            f"checkpoint {str(path)!r} expects observations {tuple(metadata['observation_shape'])} and "
            f"{metadata['num_actions']} actions, but {env_id} with options {options} has "
            f"{tuple(game.observation_shape)} and {game.num_actions}")


class PolicyAgent(Agent):
    """Plays a trained policy: the most likely legal action (or a sample with
    ``deterministic=False``). Build it from a checkpoint file with :meth:`load`, or around
    a live policy (self-play)."""

    name = "policy"

    def __init__(self, policy, metadata: dict | None = None, deterministic: bool = True, seed: int | None = None):
        super().__init__(seed)
        self.policy = policy
        self.metadata = metadata or {}
        self.deterministic = deterministic
        if seed is not None:
            self.reset(seed)

    @classmethod
    def load(cls, path: str | os.PathLike, env_id: str | None = None, env_options: dict | None = None,
             deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
        policy, metadata = load_checkpoint(path, env_id, env_options)
        agent = cls(policy, metadata, deterministic, seed)
        agent.name = Path(path).stem
        return agent

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            import torch

            self._torch_rng = torch.Generator().manual_seed(int(seed))

    def act(self, observation: dict, state: GameState | None = None) -> int:
        import torch

        obs = observation["observation"]
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if not mask.any():
            raise ValueError("the action mask has no legal action: this seat has no decision to make")
        with torch.no_grad():
            obs_tensor = torch.as_tensor(np.asarray(obs, dtype=np.float32)[None])
            distribution = self.policy.get_distribution(obs_tensor, action_masks=mask[None])
            if self.deterministic:
                action = distribution.mode()
            else:
                probs = distribution.distribution.probs[0]
                action = torch.multinomial(probs, 1, generator=getattr(self, "_torch_rng", None))
        action = int(action.reshape(-1)[0])
        if not mask[action]:  # masked logits make this impossible; never hand back an illegal move
            raise RuntimeError(f"policy chose illegal action {action}")
        return action
