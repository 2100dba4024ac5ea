"""The checkpoint file of a trained policy: weights plus metadata, and nothing that runs.

A checkpoint is one ``.pt`` file written by :func:`save_checkpoint`: a dict of plain data
(``format``, ``metadata``) and tensors (``state_dict``) in torch's zip format. Reading one
back (:func:`load_checkpoint`) never runs code from it and never lets it make the loader
allocate or hang, whatever the file holds:

1. the file must be a regular file of at most :data:`MAX_FILE_BYTES`, a zip archive whose
   members unpack to at most :data:`MAX_UNPACKED_BYTES` (checked before torch reads it);
2. a TorchScript archive (a saved ``torch.jit`` module, which holds code) is refused
   before torch reads it; then ``torch.load(weights_only=True)``: a file that holds code or
   objects other than tensors and plain data is refused;
3. every field's type is checked, and a SHA-256 over the metadata *and* the weights must
   match the one recorded at save time (an edited or corrupted file is refused);
4. the network spec is bounded (:mod:`sky_envs.agents.network`) and every tensor's name
   and shape must be the ones that spec builds, before any weight is copied;
5. with ``env_id``, the checkpoint must be for that env, with its observation and action
   shapes; a checkpoint that records ``option_ranges`` instead must cover the env's options.

The metadata names the env id and options, the observation and action shapes, the network
spec (with a pairs policy head, the game's ``action_cells`` too; with a moves head, its
``stack_moves``), and how the policy was
trained (``training``: algorithm, steps, seed, command, wall-clock seconds); evaluation
results may sit in ``rating``, and ``search`` may hold the settings this network plays best
with under search (``rollout_weight``, ``rollout_policy``, ``c_puct``, ``leaves_per_call``, ``solver``,
and for the Gumbel root ``root``, ``gumbel_k``, ``gumbel_scale``, ``c_scale``: the defaults of
``make_agent("policy.pt@N")``, measured when it shipped; ``search.SEARCH_SETTINGS``; under
``gumbel``, settings that replace those with the Gumbel root), and
``average_symmetries: true`` that the network plays averaged over the board's symmetries
(:func:`checkpoint_symmetries`), raw and under search.

A network whose weights fit every board of its game (``"any_board": true`` in its spec, see
:mod:`sky_envs.agents.network`) may record ``option_ranges``: the options it plays, as
``{"rows": {"min": 4, "max": 12}, "lines": ["all", "hex"], ...}`` (a ``min``/``max`` pair
for a number, a list of the values allowed otherwise), each checked against the value the
game resolved (``players`` is the game's ``num_players``, ``board`` its ``board_kind``;
options not named are free). Its ``env_options``, shapes and layout are then those of one
configuration it plays (the default when none is asked for); loaded for another covered
configuration, the network is built for that configuration's shapes and takes the same
weights, and any other is refused with the range it falls outside of
(:func:`option_ranges_error`).

Weights are stored as float32, or as float16 to halve the file (``weights_dtype``; the
shipped checkpoints of the larger networks use it): loading always gives a float32 network.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import zipfile
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from sky_envs.agents.network import (any_board, build_policy, check_action_cells, check_size, check_stack_moves,
                                     game_layout, moves_head, normalize_spec, pairs_head)
from sky_envs.agents.search import recorded_setting_error

FORMAT = "sky_envs.policy/2"
MAX_FILE_BYTES = 64 * 2**20
MAX_UNPACKED_BYTES = 256 * 2**20
REQUIRED = {"env_id": str, "env_options": dict, "observation_shape": list, "num_actions": int, "network": dict}
OPTIONAL = {"training": dict, "rating": dict, "search": dict, "action_cells": list, "stack_moves": dict,
            "average_symmetries": bool, "option_ranges": dict}
#: the game attribute an ``option_ranges`` key is checked against, where it is not the key itself
RESOLVED_OPTION = {"players": "num_players", "board": "board_kind"}
WEIGHTS_DTYPES = ("float32", "float16")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: missing, damaged, tampered, unsafe or for another env."""


def weights_digest(state_dict: dict) -> str:
    """SHA-256 over every tensor's name, shape, dtype and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        digest.update(f"{name}:{tuple(tensor.shape)}:{tensor.dtype}".encode())
        digest.update(tensor.numpy().tobytes())
    return digest.hexdigest()


def checkpoint_digest(metadata: dict, state_dict: dict) -> str:
    """SHA-256 over the metadata (canonical JSON, without the digest itself) and the weights."""
    plain = {key: value for key, value in metadata.items() if key != "sha256"}
    text = json.dumps(plain, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode() + weights_digest(state_dict).encode()).hexdigest()


def save_checkpoint(path: str | os.PathLike, policy, metadata: dict[str, Any], weights_dtype: str = "float32") -> Path:
    """Write ``policy``'s weights (as ``weights_dtype``: float32 or float16) and ``metadata`` to
    ``path`` atomically (temp file + rename)."""
    import torch

    if weights_dtype not in WEIGHTS_DTYPES:
        raise ValueError(f"weights_dtype must be one of {WEIGHTS_DTYPES}, got {weights_dtype!r}")
    _check_metadata(metadata, "the metadata to save")
    try:
        json.dumps(metadata)
    except (TypeError, ValueError) as error:
        raise ValueError(f"checkpoint metadata must be plain JSON data: {error}") from None
    dtype = getattr(torch, weights_dtype)
    state_dict = {k: v.detach().cpu().to(dtype).clone() for k, v in policy.state_dict().items()}
    metadata = dict(metadata)
    metadata["sha256"] = checkpoint_digest(metadata, state_dict)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        torch.save({"format": FORMAT, "metadata": metadata, "state_dict": state_dict}, tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes files private; a checkpoint is for sharing
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def read_checkpoint(path: str | os.PathLike) -> tuple[dict, dict]:
    """``(metadata, state_dict)`` of a checked file (steps 1-3 of the module docstring)."""
    import pickle

    import torch

    path = Path(path)
    where = f"checkpoint {str(path)!r}"
    if not path.is_file():
        raise CheckpointError(f"{where} does not exist or is not a regular file (expected a .pt file written by sky_envs)")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise CheckpointError(f"{where} is {size:,} bytes: sky_envs checkpoints are at most {MAX_FILE_BYTES:,}")
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(member.file_size for member in archive.infolist())
            members = archive.namelist()
    except Exception as error:  # noqa: BLE001 - zipfile raises many kinds (bad names decode as UnicodeDecodeError)
        raise CheckpointError(f"{where} is damaged or truncated: not a torch zip archive "
                              f"({type(error).__name__}: {error})") from None
    # torch.jit.save writes <name>/code/... and <name>/constants.pkl beside the data; torch.load
    # refuses such a file with advice to load it unchecked, which would run its code
    if any(member.partition("/")[2] == "constants.pkl" or member.partition("/")[2].startswith("code/")
           for member in members):
        raise CheckpointError(f"{where} is a TorchScript archive (a saved torch.jit module): it holds code, so "
                              "sky_envs never loads it. Expected a checkpoint written by sky_envs "
                              "(save_checkpoint, training.train), which holds weights and plain data only")
    if unpacked > MAX_UNPACKED_BYTES:
        raise CheckpointError(f"{where} unpacks to {unpacked:,} bytes: refused, the limit is {MAX_UNPACKED_BYTES:,}")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        # torch's own message suggests weights_only=False, which would run the payload
        raise CheckpointError(f"{where} was refused: it holds code or objects other than tensors and plain data, "
                              "which sky_envs never writes") from None
    except Exception as error:  # noqa: BLE001 - any other failure to read is damage
        raise CheckpointError(f"{where} is damaged or truncated: {type(error).__name__}: {error}") from None
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        found = blob.get("format") if isinstance(blob, dict) else type(blob).__name__
        raise CheckpointError(f"{where} is not a sky_envs policy checkpoint: expected format {FORMAT!r}, found {found!r}")
    metadata, state_dict = blob.get("metadata"), blob.get("state_dict")
    if not isinstance(metadata, dict) or not isinstance(state_dict, dict):
        raise CheckpointError(f"{where} is damaged: 'metadata' and 'state_dict' must be mappings")
    bad = [name for name, tensor in state_dict.items() if not isinstance(name, str) or not isinstance(tensor, torch.Tensor)]
    if bad:
        raise CheckpointError(f"{where} is damaged: state_dict must map tensor names to tensors; bad entries {bad[:5]!r}")
    allowed = tuple(getattr(torch, name) for name in WEIGHTS_DTYPES)
    odd = [f"{name}: {tensor.dtype}" for name, tensor in state_dict.items() if tensor.dtype not in allowed]
    if odd:
        raise CheckpointError(f"{where} is damaged: weights must be {' or '.join(WEIGHTS_DTYPES)}, found {odd[:3]}")
    _check_metadata(metadata, where)
    if checkpoint_digest(metadata, state_dict) != metadata.get("sha256"):
        raise CheckpointError(f"{where} was tampered with or corrupted: its metadata and weights do not match the "
                              "SHA-256 recorded when it was saved")
    return metadata, state_dict


def _check_metadata(metadata: dict, where: str) -> None:
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{where}: metadata must be a mapping")
    for key, kind in {**REQUIRED, **OPTIONAL}.items():
        if key not in metadata:
            if key in REQUIRED:
                raise CheckpointError(f"{where} is damaged: its metadata misses {key!r}")
            continue
        value = metadata[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise CheckpointError(f"{where} is damaged: metadata {key!r} must be a {kind.__name__}, got {value!r:.80}")
    shape = metadata["observation_shape"]
    if not (1 <= len(shape) <= 3 and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 100_000 for n in shape)
            and math.prod(shape) <= 10**6):
        raise CheckpointError(f"{where} is damaged: observation_shape {shape!r:.80} is not 1 to 3 positive sizes")
    if not 1 <= metadata["num_actions"] <= 10**6:
        raise CheckpointError(f"{where} is damaged: num_actions {metadata['num_actions']!r} is out of range")
    if not all(isinstance(key, str) for key in metadata["env_options"]):
        raise CheckpointError(f"{where} is damaged: env_options must map option names to values")
    for key, value in metadata.get("search", {}).items():
        if (error := recorded_setting_error(key, value)) is not None:
            raise CheckpointError(f"{where} is damaged: metadata 'search' holds {key}={value!r:.40} ({error:.200})")
    if "option_ranges" in metadata:
        if (error := option_ranges_format_error(metadata["option_ranges"], metadata["network"])) is not None:
            raise CheckpointError(f"{where} is damaged: metadata 'option_ranges' {error}")
    try:
        check_size(normalize_spec(metadata["network"]), shape, metadata["num_actions"])
        check_action_cells(metadata["network"], shape, metadata["num_actions"], metadata.get("action_cells"))
        check_stack_moves(metadata["network"], shape, metadata["num_actions"], metadata.get("stack_moves"))
    except ValueError as error:
        raise CheckpointError(f"{where}: {error}") from None


class Checkpoint:
    """A checkpoint file read, checked and loaded once (:func:`open_checkpoint`): its
    ``policy``, ``metadata`` and ``path``, the env it plays (``env_id``, ``env_options``: the
    ones asked for, by default its own), that env's :class:`~sky_envs.core.state.Game`
    (built once, on first use, unless the env check built it already) and the board
    ``symmetries`` its network is averaged over (:func:`checkpoint_symmetries`). Agents made
    from one :class:`Checkpoint` (``make_agent(checkpoint)``, raw or with search) share all of it."""

    def __init__(self, path: str | os.PathLike | None, policy, metadata: dict, env_id: str | None = None,
                 env_options: dict | None = None, game=None):
        self.path = None if path is None else Path(path)
        self.policy = policy
        self.metadata = metadata
        self.env_id = metadata["env_id"] if env_id is None else env_id
        self.env_options = metadata["env_options"] if env_options is None else env_options
        self._game = game

    @property
    def game(self):
        if self._game is None:
            from sky_envs.core.registry import make_game

            self._game = make_game(self.env_id, **self.env_options)
        return self._game

    @cached_property
    def symmetries(self):
        if not self.metadata.get("average_symmetries", False):
            return None
        symmetries = self.game.symmetries
        if symmetries is None:
            raise CheckpointError(f"the checkpoint's network plays averaged over the board's symmetries, but "
                                  f"{self.env_id} with options {self.env_options} has none (no board symmetries: "
                                  "Game.symmetries is None)")
        return symmetries

    def __repr__(self) -> str:
        return f"<Checkpoint {self.path} for {self.env_id}>"


def open_checkpoint(path: str | os.PathLike, env_id: str | None = None, env_options: dict | None = None) -> Checkpoint:
    """A checkpoint file, checked as the module docstring says, as a :class:`Checkpoint`.

    With ``env_id`` (and optionally ``env_options``, default: the checkpoint's own) the
    checkpoint must be for that env, with the observation and action shapes that env has.
    """
    metadata, state_dict = read_checkpoint(path)
    where = f"checkpoint {str(path)!r}"
    game = check_env(where, metadata, env_id, env_options) if env_id is not None else None
    if game is not None and "option_ranges" in metadata:  # weights for any board: built for this one
        policy = build_policy(metadata["network"], game.observation_shape, game.num_actions, **game_layout(game),
                              orthogonal_init=False)
    else:
        policy = build_policy(metadata["network"], metadata["observation_shape"], metadata["num_actions"],
                              action_cells=metadata.get("action_cells"), stack_moves=metadata.get("stack_moves"),
                              orthogonal_init=False)
    expected = {name: tuple(tensor.shape) for name, tensor in policy.state_dict().items()}
    found = {name: tuple(tensor.shape) for name, tensor in state_dict.items()}
    if expected != found:
        wrong = sorted(set(expected) ^ set(found)) or [n for n in expected if expected[n] != found[n]]
        raise CheckpointError(f"{where} does not fit its own network {metadata['network']}: tensors {wrong[:5]} "
                              "are missing, unexpected or of another shape")
    policy.load_state_dict({name: tensor.float() for name, tensor in state_dict.items()})
    policy.set_training_mode(False)
    return Checkpoint(path, policy, metadata, env_id, env_options, game)


def load_checkpoint(path: str | os.PathLike, env_id: str | None = None,
                    env_options: dict | None = None) -> tuple[Any, dict]:
    """``(policy, metadata)`` of :func:`open_checkpoint`."""
    checkpoint = open_checkpoint(path, env_id, env_options)
    return checkpoint.policy, checkpoint.metadata


def check_env(where: str, metadata: dict, env_id: str, env_options: dict | None):
    """The checkpoint described by ``metadata`` plays ``env_id`` with these options (its own by
    default): the env's :class:`~sky_envs.core.state.Game`, built for the check."""
    from sky_envs.core.registry import canonical_id, make_game

    if canonical_id(metadata["env_id"]) != canonical_id(env_id):
        raise CheckpointError(f"{where} is a {metadata['env_id']} policy, not one for {canonical_id(env_id)}")
    options = metadata["env_options"] if env_options is None else env_options
    try:
        game = make_game(env_id, **options)
    except ValueError as error:
        raise CheckpointError(f"{where} names env options {options} that {env_id} refuses: {error}") from None
    if "option_ranges" in metadata:
        if (error := option_ranges_error(metadata["option_ranges"], game)) is not None:
            raise CheckpointError(f"{where} does not play {env_id} with options {options}: {error}")
        return game
    if tuple(metadata["observation_shape"]) != tuple(game.observation_shape) or metadata["num_actions"] != game.num_actions:
        raise CheckpointError(
            f"{where} expects observations {tuple(metadata['observation_shape'])} and {metadata['num_actions']} "
            f"actions, but {env_id} with options {options} has {tuple(game.observation_shape)} and {game.num_actions}")
    cells = metadata.get("action_cells")
    if cells is not None and tuple(cells) != tuple(game.action_cells or ()):
        raise CheckpointError(f"{where} scores moves between board cells that {env_id} does not have "
                              "(its action_cells differ from the game's)")
    moves = metadata.get("stack_moves")
    if moves is not None and (game.stack_moves is None or moves != game.stack_moves.as_dict()):
        raise CheckpointError(f"{where} scores stack moves that {env_id} with options {options} does not have "
                              "(its stack_moves differ from the game's: another board box or lines)")
    return game


def option_ranges_format_error(ranges: dict, network: dict) -> str | None:
    """What is wrong with an ``option_ranges`` record (the module docstring), or None."""
    try:
        board_free = any_board(network)
    except ValueError:
        board_free = False  # the network spec's own check says what is wrong with it
    if not board_free:
        return "needs a network whose weights fit every board (network any_board: true)"
    for key, allowed in ranges.items():
        if isinstance(allowed, dict):
            bounds = [allowed.get("min"), allowed.get("max")]
            if set(allowed) != {"min", "max"} or not all(isinstance(n, int) and not isinstance(n, bool) for n in bounds) \
                    or bounds[0] > bounds[1]:
                return f"{key!r} must be {{'min': m, 'max': n}} with integers m <= n, got {allowed!r:.80}"
        elif not isinstance(allowed, list) or not allowed or \
                not all(isinstance(value, (str, int)) and not isinstance(value, bool) for value in allowed):
            return f"{key!r} must be a min/max mapping or a non-empty list of allowed values, got {allowed!r:.80}"
    return None


def option_ranges_error(ranges: dict, game) -> str | None:
    """Why ``game`` (a :class:`~sky_envs.core.state.Game`) falls outside ``ranges`` (an
    ``option_ranges`` record): the first option out of its range, named with the range; None
    when it is covered."""
    for key, allowed in ranges.items():
        value = getattr(game, RESOLVED_OPTION.get(key, key), None)
        if value is None:
            return f"{game.env_id} has no option {key!r} to check against the checkpoint's range {allowed}"
        if isinstance(allowed, dict):
            if not allowed["min"] <= value <= allowed["max"]:
                return (f"{key} {value} is outside the range the checkpoint covers, {allowed['min']}..{allowed['max']} "
                        f"(it covers {describe_ranges(ranges)})")
        elif value not in allowed:
            return (f"{key} {value!r} is not one the checkpoint covers, {allowed} "
                    f"(it covers {describe_ranges(ranges)})")
    return None


def describe_ranges(ranges: dict) -> str:
    """An ``option_ranges`` record in words: ``rows 4..12, lines all/hex``."""
    return ", ".join(f"{key} {allowed['min']}..{allowed['max']}" if isinstance(allowed, dict)
                     else f"{key} {'/'.join(str(value) for value in allowed)}" for key, allowed in ranges.items())


def checkpoint_symmetries(metadata: dict, env_id: str | None = None, env_options: dict | None = None):
    """The board symmetries (:class:`~sky_envs.core.symmetry.BoardSymmetries`) that the
    network of a checkpoint with ``metadata`` is averaged over when it plays ``env_id`` with
    ``env_options`` (default: its own env and options), or None where its metadata does not
    ask for it (``average_symmetries``, recorded by ``training.ship``). Averaging the
    network's log-probabilities and values over every mirrored and rotated view of the
    position makes a network whose choices are exactly symmetric. ``CheckpointError`` if
    that env has no symmetries (:attr:`Checkpoint.symmetries`, what loaded checkpoints use)."""
    return Checkpoint(None, None, metadata, env_id, env_options).symmetries


def policy_metadata(game, options: dict, network: dict, option_ranges: dict | None = None, **training: Any) -> dict:
    """The metadata of a policy for ``game`` (a :class:`~sky_envs.core.state.Game` made with
    ``options``); with ``option_ranges``, those of a network for any board that covers them."""
    metadata = {"env_id": game.env_id, "env_options": dict(options), "observation_shape": list(game.observation_shape),
                "num_actions": int(game.num_actions), "network": normalize_spec(network),
                "training": {k: (v.item() if isinstance(v, np.generic) else v) for k, v in training.items()}}
    if pairs_head(network):
        metadata["action_cells"] = list(check_action_cells(network, game.observation_shape, game.num_actions,
                                                           game.action_cells))
    if moves_head(network):
        metadata["stack_moves"] = check_stack_moves(network, game.observation_shape, game.num_actions,
                                                    game.stack_moves).as_dict()
    if option_ranges is not None:
        if (error := option_ranges_format_error(option_ranges, network)) is not None:
            raise ValueError(f"option_ranges {error}")
        if (error := option_ranges_error(option_ranges, game)) is not None:
            raise ValueError(f"a checkpoint's own options must lie in its option_ranges: {error}")
        metadata["option_ranges"] = option_ranges
    return metadata
