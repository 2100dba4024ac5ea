"""``train.init_from``: a run that starts from a checkpoint's weights instead of random ones.

Both learners use it the same way: the weights are checked here (the checkpoint plays the
run's env with its options, and its network is the config's ``policy``), loaded once into the
new network, and the source is named in every checkpoint the run writes
(``metadata["training"]["init_from"]``: file, SHA-256, its own training record), so a
fine-tuned policy still says how it was made. A resumed run ignores the setting: its own
saved weights are newer.
"""

from __future__ import annotations

from sky_envs.agents.checkpoint import CheckpointError, check_env, read_checkpoint
from sky_envs.agents.network import normalize_spec


def initial_weights(config: dict) -> tuple[dict, dict] | None:
    """``(state_dict, provenance)`` of ``config["train"]["init_from"]``, or None when it is
    unset. Raises :class:`CheckpointError` for a file that does not fit the run."""
    source = config["train"]["init_from"]
    if source is None:
        return None
    metadata, state_dict = read_checkpoint(source)
    where = f"train.init_from checkpoint {str(source)!r}"
    check_env(where, metadata, config["env"]["id"], config["env"]["options"])
    network = normalize_spec(config["policy"])
    if metadata["network"] != network:
        raise CheckpointError(f"{where} holds the network {metadata['network']}, but the config's policy is {network}: "
                              "set policy to the checkpoint's network to start from its weights")
    provenance = {"file": str(source), "sha256": metadata["sha256"], "training": metadata.get("training", {})}
    return {name: tensor.float() for name, tensor in state_dict.items()}, provenance


def load_initial_weights(policy, weights: tuple[dict, dict] | None) -> None:
    """Puts the weights of :func:`initial_weights` into ``policy`` (nothing when None)."""
    if weights is not None:
        policy.load_state_dict(weights[0])


__all__ = ["initial_weights", "load_initial_weights"]
