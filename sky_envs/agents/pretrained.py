"""The shipped agents: the agent spec ``pretrained`` is the network shipped for the env in
question (``checkpoints/<env_id>/policy.pt``), ``pretrained@N`` PUCT search with N
simulations guided by it, like ``policy.pt@N``, and ``pretrained@N+gumbel`` the same with
the Gumbel root.

The checkpoints are found in the clone's ``checkpoints/`` folder (a checkout, installed
editable or not) or, in an installed wheel, in ``sky_envs/checkpoints/``; the default
training configs ``configs/<game>.yaml`` likewise (:func:`default_config`).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]   # the sky_envs folder
SPEC = "pretrained"


def data_folder(name: str) -> Path:
    """``sky_envs/<name>`` in an installed wheel, else the clone's ``<name>/`` beside sky_envs."""
    for folder in (PACKAGE / name, PACKAGE.parent / name):
        if folder.is_dir():
            return folder
    raise FileNotFoundError(f"no {name}/ folder beside {str(PACKAGE)!r}: the sky_envs install is incomplete "
                            f"(a wheel carries sky_envs/{name}/, a clone has {name}/ at its root)")


def pretrained_path(env_id: str | None) -> Path:
    """The shipped checkpoint of ``env_id``; ``ValueError`` where there is none."""
    from sky_envs.core.registry import canonical_id

    if env_id is None:
        raise ValueError("agent spec 'pretrained' needs env_id: it is the network shipped for one env "
                         "(make_agent('pretrained', env_id='scala_v0'))")
    key = canonical_id(env_id)
    folder = data_folder("checkpoints")
    path = folder / key / "policy.pt"
    if not path.is_file():
        shipped = sorted(p.parent.name for p in folder.glob("*/policy.pt"))
        raise ValueError(f"agent spec 'pretrained': no network is shipped for {key!r} (no {str(path)!r}); "
                         f"the envs with one are {shipped}")
    return path


def default_config(env_id: str) -> Path:
    """The default training config of ``env_id``: ``configs/<game>.yaml``."""
    from sky_envs.core.registry import canonical_id, env_ids, make_game

    key = canonical_id(env_id)
    make_game(key)  # an unknown id: the registry's error, listing the valid ones
    path = data_folder("configs") / f"{key.rsplit('_v', 1)[0]}.yaml"
    if not path.is_file():
        raise ValueError(f"env {key!r} has no default config {str(path)!r} (envs: {env_ids()}); give --config FILE")
    return path
