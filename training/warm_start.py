"""``train.init_from``: a run that starts from a checkpoint's weights instead of random ones.

Both learners use it the same way: the weights are checked here (the checkpoint plays the
run's env with its options, and its network is the config's ``policy``), loaded once into the
new network, and the source is named in every checkpoint the run writes
(``metadata["training"]["init_from"]``: file, SHA-256, its own training record), so a
fine-tuned policy still says how it was made. A resumed run ignores the setting: its own
saved weights are newer, and its run state keeps that record (the file may since have
changed or gone).
"""

from __future__ import annotations

from pathlib import Path

from sky_envs.agents.checkpoint import CheckpointError, check_env, read_checkpoint
from sky_envs.agents.network import normalize_spec
from .run_folder import STATE


def initial_weights(config: dict, run_dir: str | Path) -> tuple[dict | None, dict | None]:
    """``(state_dict, provenance)`` of ``config["train"]["init_from"]``; ``(None, None)`` when
    it is unset or ``run_dir`` already holds a run (which resumes from its own weights and
    record). Raises :class:`CheckpointError` for a file that does not fit the run."""
    source = config["train"]["init_from"]
    if source is None or (Path(run_dir) / STATE).exists():
        return None, None
    metadata, state_dict = read_checkpoint(source)
    where = f"train.init_from checkpoint {str(source)!r}"
    check_env(where, metadata, config["env"]["id"], config["env"]["options"])
    network = normalize_spec(config["policy"])
    # both normalised: a checkpoint written before a spec key existed holds that key's default
    if normalize_spec(metadata["network"]) != network:
        raise CheckpointError(f"{where} holds the network {metadata['network']}, but the config's policy is {network}: "
                              "set policy to the checkpoint's network to start from its weights")
    provenance = {"file": str(source), "sha256": metadata["sha256"], "training": metadata.get("training", {})}
    return {name: tensor.float() for name, tensor in state_dict.items()}, provenance


__all__ = ["initial_weights"]
