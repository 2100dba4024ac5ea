"""The shipped agents: the agent spec ``pretrained`` is the network shipped for the env in
question (``checkpoints/<env_id>/policy.pt``), ``pretrained@N`` PUCT search with N
simulations guided by it, like ``policy.pt@N``, and ``pretrained@N+gumbel`` the same with
the Gumbel root.

Where an env ships more than one network, its folder holds ``pretrained.json``, which says
which plays what: ``{"networks": [{"file": "policy.pt", "options": RANGES}, {"file":
"universal.pt"}]}``, in order of preference. ``pretrained`` is then the first network that
plays the options asked for: its checkpoint accepts them (its own ``option_ranges``, or its
env options' shapes, see :mod:`sky_envs.agents.checkpoint`) and they lie within the entry's
``options`` ranges where it gives some (same format as a checkpoint's ``option_ranges``).

The checkpoints are found in the clone's ``checkpoints/`` folder (a checkout, installed
editable or not) or, in an installed wheel, in ``sky_envs/checkpoints/``; the default
training configs ``configs/<game>.yaml`` likewise (:func:`default_config`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]   # the sky_envs folder
SPEC = "pretrained"
MANIFEST = "pretrained.json"  # which of an env's shipped networks plays what, where it ships several


def data_folder(name: str) -> Path:
    """``sky_envs/<name>`` in an installed wheel, else the clone's ``<name>/`` beside sky_envs."""
    for folder in (PACKAGE / name, PACKAGE.parent / name):
        if folder.is_dir():
            return folder
    raise FileNotFoundError(f"no {name}/ folder beside {str(PACKAGE)!r}: the sky_envs install is incomplete "
                            f"(a wheel carries sky_envs/{name}/, a clone has {name}/ at its root)")


def pretrained_path(env_id: str | None, env_options: dict | None = None, folder: str | os.PathLike | None = None) -> Path:
    """The shipped checkpoint of ``env_id`` that plays ``env_options`` (default: the env's
    defaults), from ``folder`` (default: the shipped ``checkpoints/``); ``ValueError`` where
    there is none."""
    from sky_envs.core.registry import canonical_id

    if env_id is None:
        raise ValueError("agent spec 'pretrained' needs env_id: it is the network shipped for one env "
                         "(make_agent('pretrained', env_id='scala_v0'))")
    key = canonical_id(env_id)
    folder = data_folder("checkpoints") if folder is None else Path(folder)
    path = folder / key / "policy.pt"
    manifest = folder / key / MANIFEST
    if manifest.is_file():
        return _covering_network(key, env_options or {}, manifest)
    if not path.is_file():
        shipped = sorted(p.parent.name for p in folder.glob("*/policy.pt"))
        raise ValueError(f"agent spec 'pretrained': no network is shipped for {key!r} (no {str(path)!r}); "
                         f"the envs with one are {shipped}")
    return path


def _covering_network(env_id: str, options: dict, manifest: Path) -> Path:
    """The first network of ``manifest`` (``pretrained.json``) that plays ``options``."""
    from sky_envs.agents.checkpoint import CheckpointError, check_env, option_ranges_error, read_checkpoint
    from sky_envs.core.registry import make_game

    try:
        networks = json.loads(manifest.read_text())["networks"]
        entries = [(manifest.parent / entry["file"], entry.get("options")) for entry in networks]
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{str(manifest)!r} is damaged: expected {{'networks': [{{'file': ..., 'options': ...}}]}} "
                         f"({type(error).__name__}: {error})") from None
    try:
        game = make_game(env_id, **options)
    except ValueError as error:
        raise ValueError(f"agent spec 'pretrained': {env_id} refuses options {options}: {error}") from None
    reasons = []
    for path, ranges in entries:
        try:
            check_env(f"checkpoint {str(path)!r}", read_checkpoint(path)[0], env_id, options)
        except CheckpointError as error:
            reasons.append(str(error))
            continue
        if ranges is not None and (error := option_ranges_error(ranges, game)) is not None:
            reasons.append(f"{path.name} is shipped for other options: {error}")
            continue
        return path
    raise ValueError(f"agent spec 'pretrained': no network shipped for {env_id} plays options {options}: "
                     + "; ".join(reasons))


def default_config(env_id: str) -> Path:
    """The default training config of ``env_id``: ``configs/<game>.yaml``."""
    from sky_envs.core.registry import canonical_id, env_ids, make_game

    key = canonical_id(env_id)
    make_game(key)  # an unknown id: the registry's error, listing the valid ones
    path = data_folder("configs") / f"{key.rsplit('_v', 1)[0]}.yaml"
    if not path.is_file():
        raise ValueError(f"env {key!r} has no default config {str(path)!r} (envs: {env_ids()}); give --config FILE")
    return path
