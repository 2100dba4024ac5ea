"""The networks of trained policies, described by a small dict that checkpoints record.

A *network spec* is plain data, so a checkpoint can name its architecture without storing
code, and loading one stays weights-only:

* ``{"kind": "mlp", "hidden": [256, 256], "activation": "relu"}``: the observation is
  flattened; any observation shape (Sky Towers' flat vector, or a board as a baseline).
* ``{"kind": "resnet", "channels": 64, "blocks": 4, "head_channels": 8, "head_hidden": [128]}``:
  a convolutional residual trunk over a channels-last board ``(rows, cols, planes)`` (the
  AlphaZero shape: 3x3 convolutions that keep the board size, two per residual block),
  a 1x1 convolution down to ``head_channels`` planes, then policy and value heads of
  ``head_hidden`` layers. The trunk sees every cell with the same weights, so what it
  learns about one part of the board carries to every other part, and to boards of other
  shapes inside the same box. ``"policy_head": "pairs"`` (games with ``action_cells``,
  whose actions move between two board cells: Scala) replaces the dense policy head with
  :class:`~sky_envs.agents.features.CellPairsHead`: a move scores the product of the
  trunk's planes at its two cells, so ``head_channels`` (even) is twice the vectors' size
  and ``head_hidden`` is the value head's alone. ``"policy_head": "moves"`` (games with
  ``stack_moves``, whose stacks move as far as they are high: Sky Scrapers) scores each
  move from the trunk at its start and at the cell where it lands, read from the
  observation's heights (:class:`~sky_envs.agents.features.StackMovesHead`);
  ``head_channels`` is then the width of those cell vectors and of the value head's planes.
  With ``"any_board": true`` as well, one set of weights plays every board of the game
  (:class:`~sky_envs.agents.features.AnyBoardPolicy`): the trunk reads the observation in a
  layout of its own (the seats' height planes in four slots, planes telling where each
  cell's neighbours are), keeps every plane zero off the board, and the value head pools
  over the board's cells; no weight depends on the box size, the line set or the seat count.

Both become the ``policy_kwargs`` of sb3-contrib's ``MaskableActorCriticPolicy``: the
same network serves PPO and the search-based learner, and one checkpoint format holds
either. Inputs are log-scaled first (``sign(x) * log1p(|x|)``): observations are raw
counts (stack heights, cards) whose range differs between games and channels.

Every size is bounded (:data:`LIMITS`) and the parameter count is computed before anything
is built, so a spec from a damaged or hostile file cannot make loading allocate gigabytes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sky_envs.core.state import StackMoves

ACTIVATIONS = ("tanh", "relu")
KINDS = ("mlp", "resnet")
POLICY_HEADS = ("dense", "pairs", "moves")
LIMITS = {"width": 4096, "layers": 8, "channels": 256, "blocks": 20, "parameters": 20_000_000}
DEFAULTS = {
    "mlp": {"hidden": [256, 256], "activation": "relu"},
    "resnet": {"channels": 64, "blocks": 4, "head_channels": 8, "head_hidden": [128], "activation": "relu",
               "policy_head": "dense", "any_board": False},
}


def _positive_int(value: Any, name: str, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= limit:
        raise ValueError(f"network {name} must be an integer in 1..{limit}, got {value!r}")
    return int(value)


def _widths(value: Any, name: str) -> list[int]:
    if not isinstance(value, (list, tuple)) or len(value) > LIMITS["layers"]:
        raise ValueError(f"network {name} must be a list of at most {LIMITS['layers']} layer widths, got {value!r}")
    return [_positive_int(width, f"{name} width", LIMITS["width"]) for width in value]


def normalize_spec(spec: Any) -> dict:
    """A validated, complete copy of ``spec`` (defaults filled in); ``ValueError`` if bad."""
    if not isinstance(spec, dict) or spec.get("kind") not in KINDS:
        raise ValueError(f"a network spec is a mapping with 'kind' one of {KINDS}, got {spec!r}")
    kind = spec["kind"]
    unknown = set(spec) - set(DEFAULTS[kind]) - {"kind"}
    if unknown:
        raise ValueError(f"unknown {kind} network key(s) {sorted(unknown)}: expected {sorted(DEFAULTS[kind])}")
    out = {"kind": kind, **DEFAULTS[kind], **{k: v for k, v in spec.items() if k != "kind"}}
    if out["activation"] not in ACTIVATIONS:
        raise ValueError(f"network activation must be one of {ACTIVATIONS}, got {out['activation']!r}")
    if kind == "mlp":
        out["hidden"] = _widths(out["hidden"], "hidden")
    else:
        out["channels"] = _positive_int(out["channels"], "channels", LIMITS["channels"])
        out["blocks"] = _positive_int(out["blocks"], "blocks", LIMITS["blocks"])
        out["head_channels"] = _positive_int(out["head_channels"], "head_channels", LIMITS["channels"])
        out["head_hidden"] = _widths(out["head_hidden"], "head_hidden")
        if out["policy_head"] not in POLICY_HEADS:
            raise ValueError(f"network policy_head must be one of {POLICY_HEADS}, got {out['policy_head']!r}")
        if not isinstance(out["any_board"], bool):
            raise ValueError(f"network any_board must be true or false, got {out['any_board']!r}")
        if out["any_board"] and out["policy_head"] != "moves":
            raise ValueError(f"network any_board needs policy_head 'moves' (the head that reads where moves land "
                             f"from the game's layout), got {out['policy_head']!r}")
        if out["policy_head"] == "pairs" and out["head_channels"] % 2:
            raise ValueError(f"a pairs policy head splits the head planes in two halves: head_channels must be "
                             f"even, got {out['head_channels']}")
    return out


def any_board(spec: dict) -> bool:
    """True when ``spec``'s weights fit every board of its game (``any_board: true``)."""
    spec = normalize_spec(spec)
    return spec["kind"] == "resnet" and spec["any_board"]


def pairs_head(spec: dict) -> bool:
    """True when ``spec``'s policy scores moves by their two cells (it needs ``action_cells``)."""
    spec = normalize_spec(spec)
    return spec["kind"] == "resnet" and spec["policy_head"] == "pairs"


def moves_head(spec: dict) -> bool:
    """True when ``spec``'s policy scores stack moves by both their cells (it needs ``stack_moves``)."""
    spec = normalize_spec(spec)
    return spec["kind"] == "resnet" and spec["policy_head"] == "moves"


def check_stack_moves(spec: dict, observation_shape, num_actions: int, stack_moves) -> StackMoves | None:
    """The ``stack_moves`` layout a moves head needs (a :class:`StackMoves` or its dict), checked
    against the shapes (None for other networks); ``ValueError`` saying what is wrong."""
    if not moves_head(spec):
        return None
    if stack_moves is None:
        raise ValueError("a moves policy head needs a game whose stacks move as far as they are high "
                         "(Game.stack_moves); this game has none: use policy_head 'dense'")
    layout = StackMoves.from_dict(stack_moves)
    rows, cols, planes = _board_shape(observation_shape)
    cells = rows * cols
    table = layout.targets
    if not 1 <= layout.directions <= 8 or not 0 <= layout.cell_actions <= 8:
        raise ValueError(f"stack_moves needs 1..8 directions and 0..8 cell actions, got {layout.directions} and "
                         f"{layout.cell_actions}")
    if table.ndim != 3 or table.shape[1:] != (cells, layout.directions) or not 1 <= len(table) <= 1 + max(rows, cols):
        raise ValueError(f"stack_moves targets must have shape (heights, {cells}, {layout.directions}) with at most "
                         f"{1 + max(rows, cols)} heights for a {rows}x{cols} board, got {table.shape}")
    if table.min() < 0 or table.max() > cells:
        raise ValueError(f"stack_moves targets must be cells 0..{cells} ({cells}: off the board)")
    if not layout.height_planes or not all(0 <= plane < planes for plane in layout.height_planes):
        raise ValueError(f"stack_moves height_planes must be planes 0..{planes - 1}, got {layout.height_planes}")
    if normalize_spec(spec)["any_board"]:
        from sky_envs.agents.features import SEATS

        if len(layout.height_planes) > SEATS:
            raise ValueError(f"an any_board network reads at most {SEATS} seats' height planes, got "
                             f"{len(layout.height_planes)}")
    if cells * (layout.directions + layout.cell_actions) > num_actions:
        raise ValueError(f"stack_moves lays out {cells * (layout.directions + layout.cell_actions)} actions, "
                         f"more than the game's {num_actions}")
    return layout


def game_layout(game) -> dict:
    """What a network of any spec may need from ``game`` beyond its shapes: the keyword
    arguments of :func:`build_policy` (``action_cells``, ``stack_moves``)."""
    return {"action_cells": game.action_cells, "stack_moves": game.stack_moves}


def check_action_cells(spec: dict, observation_shape, num_actions: int, action_cells) -> tuple[int, ...] | None:
    """The ``action_cells`` a pairs head needs, checked against the shapes (None for other
    networks); ``ValueError`` saying what is wrong."""
    if not pairs_head(spec):
        return None
    if action_cells is None:
        raise ValueError("a pairs policy head needs a game whose actions are moves between board cells "
                         "(Game.action_cells); this game has none: use policy_head 'dense'")
    cells = tuple(int(cell) for cell in action_cells)
    rows, cols, _ = _board_shape(observation_shape)
    if len(cells) ** 2 != num_actions or not all(0 <= cell < rows * cols for cell in cells):
        raise ValueError(f"action_cells must be n cells of the {rows}x{cols} board with n * n = {num_actions} "
                         f"actions, got {len(cells)} cells")
    return cells


def parameter_count(spec: dict, observation_shape, num_actions: int, stack_moves=None) -> int:
    """Parameters of the policy ``spec`` builds for these shapes (computed, nothing built;
    for a moves head without its ``stack_moves`` layout, an upper bound)."""
    spec = normalize_spec(spec)
    if spec["kind"] == "resnet":
        rows, cols, planes = _board_shape(observation_shape)
        c = spec["channels"]
        if spec["any_board"]:  # the rebuilt input planes (an upper bound without the layout: no seat planes)
            seats, directions = 0, 8
            if stack_moves is not None:
                layout = StackMoves.from_dict(stack_moves)
                seats, directions = len(layout.height_planes), layout.directions
            from sky_envs.agents.features import any_board_input_planes

            planes = any_board_input_planes(planes, seats, directions)
        trunk = (planes * 9 + 1) * c + spec["blocks"] * 2 * (c * 9 * c + c) + (c + 1) * spec["head_channels"]
        # the value head reads the head planes at every cell, or their mean and maximum over the board
        features = spec["head_channels"] * (2 if spec["any_board"] else rows * cols)
        hidden = spec["head_hidden"]
    else:
        trunk, features, hidden = 0, math.prod(observation_shape), spec["hidden"]
    head, width = 0, features  # the hidden layers of one head, and the width they end with
    for layer in hidden:
        head += (width + 1) * layer
        width = layer
    value = head + width + 1
    if spec["kind"] == "resnet" and spec["policy_head"] == "pairs":
        return trunk + value + num_actions  # the pairs head: one bias per action, no layers
    if spec["kind"] == "resnet" and spec["policy_head"] == "moves":
        return trunk + value + moves_head_count(spec, observation_shape, num_actions, stack_moves)
    return trunk + value + head + (width + 1) * num_actions


def moves_head_count(spec: dict, observation_shape, num_actions: int, stack_moves=None) -> int:
    """The weights of a moves head beyond the trunk and value head (with no layout, the most
    any layout gives: every action from the mean of the cells)."""
    rows, cols, _ = _board_shape(observation_shape)
    c, k = spec["channels"], spec["head_channels"]
    directions, per_cell, rest = 8, 0, num_actions
    if stack_moves is not None:
        layout = StackMoves.from_dict(stack_moves)
        directions, per_cell = layout.directions, layout.cell_actions
        rest = num_actions - rows * cols * (directions + per_cell)
    # start and landing vectors, directions, the score layer, cell actions, the other actions
    return (2 * (c + 1) * k + directions * k + k + 1 + (c + 1) * per_cell * (per_cell > 0)
            + (c + 1) * rest * (rest > 0))


def check_size(spec: dict, observation_shape, num_actions: int) -> None:
    count = parameter_count(spec, observation_shape, num_actions)
    if count > LIMITS["parameters"]:
        raise ValueError(f"network {spec} would have {count:,} parameters for observations "
                         f"{tuple(observation_shape)} and {num_actions} actions: the limit is {LIMITS['parameters']:,}")


def _board_shape(observation_shape) -> tuple[int, int, int]:
    if len(observation_shape) != 3:
        raise ValueError(f"a resnet network needs board observations (rows, cols, planes), got shape "
                         f"{tuple(observation_shape)}: use kind 'mlp' for flat observations")
    return tuple(int(n) for n in observation_shape)


def policy_class(spec: dict) -> type:
    """The sb3-contrib policy class of a network spec, a subclass of ``MaskableActorCriticPolicy``:
    :class:`~sky_envs.agents.features.CellPairsPolicy` for a pairs policy head,
    :class:`~sky_envs.agents.features.StackMovesPolicy` for a moves head,
    :class:`~sky_envs.agents.features.AnyBoardPolicy` for one with ``any_board``, else (a
    dense head) :class:`~sky_envs.agents.legal_actions.LegalActionsPolicy`, whose PPO
    distribution in wide action spaces covers only the legal actions."""
    if pairs_head(spec):
        from sky_envs.agents.features import CellPairsPolicy

        return CellPairsPolicy
    if any_board(spec):
        from sky_envs.agents.features import AnyBoardPolicy

        return AnyBoardPolicy
    if moves_head(spec):
        from sky_envs.agents.features import StackMovesPolicy

        return StackMovesPolicy
    from sky_envs.agents.legal_actions import LegalActionsPolicy

    return LegalActionsPolicy


def policy_kwargs(spec: dict, observation_shape, num_actions: int, action_cells=None, stack_moves=None,
                  possible_actions=None) -> dict:
    """Keyword arguments of :func:`policy_class` for a network spec and a game's shapes; the
    game's layouts (:func:`game_layout`) are checked here, which a pairs head
    (``action_cells``) and a moves head (``stack_moves``) need: ``ValueError`` if they do not fit.
    ``possible_actions`` (the game's :attr:`~sky_envs.core.state.Game.possible_actions`) is
    handed to a dense head in a wide space, which then trains only their rows
    (:class:`~sky_envs.agents.legal_actions.LegalActionsPolicy`)."""
    import torch

    from sky_envs.agents.features import AnyBoardTrunk, BoardResNet, Log1pFlatten, StackMovesTrunk
    from sky_envs.agents.legal_actions import SPARSE_FROM

    spec = normalize_spec(spec)
    action_cells = check_action_cells(spec, observation_shape, num_actions, action_cells)
    stack_moves = check_stack_moves(spec, observation_shape, num_actions, stack_moves)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[spec["activation"]]
    dense = {} if possible_actions is None or num_actions < SPARSE_FROM else {"possible_actions": possible_actions}
    if spec["kind"] == "mlp":
        return {"net_arch": list(spec["hidden"]), "activation_fn": activation, "features_extractor_class": Log1pFlatten,
                **dense}
    if spec["policy_head"] == "moves":
        layout = StackMoves.from_dict(stack_moves)
        trunk = {"channels": spec["channels"], "blocks": spec["blocks"]}
        if spec["any_board"]:
            trunk_class, trunk["stack_moves"] = AnyBoardTrunk, layout.as_dict()
        else:
            trunk_class, trunk["height_planes"] = StackMovesTrunk, layout.height_planes
        return {"net_arch": {"pi": [], "vf": list(spec["head_hidden"])}, "activation_fn": activation,
                "features_extractor_class": trunk_class, "features_extractor_kwargs": trunk,
                "stack_moves": layout.as_dict(), "head_channels": spec["head_channels"]}
    pairs = spec["policy_head"] == "pairs"
    kwargs = {"net_arch": {"pi": [] if pairs else list(spec["head_hidden"]), "vf": list(spec["head_hidden"])},
              "activation_fn": activation, "features_extractor_class": BoardResNet,
              "features_extractor_kwargs": {"channels": spec["channels"], "blocks": spec["blocks"],
                                            "head_channels": spec["head_channels"], "head_activation": not pairs}}
    if pairs:
        kwargs["action_cells"] = tuple(action_cells)
    return kwargs if pairs else {**kwargs, **dense}


def forward(policy, observations, values: bool = True):
    """``(logits, values)`` of ``policy`` (a policy :func:`build_policy` makes) for a batch of
    observations (a float32 tensor): the action logits before any mask, and the value head's
    estimate per observation. The one forward pass of the project's networks, which agents,
    expert-iteration training and the RLlib module all call: SB3's own ``forward`` also
    builds a distribution and samples, which costs more than a small network's pass. With
    ``values=False`` the value side's layers are not run (half an MLP's trunk) and the values
    are None; the logits are the same."""
    latent_pi, value = _latent_and_values(policy, observations, values)
    return policy.action_net(latent_pi), value


def _latent_and_values(policy, observations, values: bool):
    """The actor's latent features (what the policy head reads) and the values, or None
    without ``values`` (the value side not run)."""
    features = policy.extract_features(observations)
    if not values:
        return policy.mlp_extractor.forward_actor(features), None
    latent_pi, latent_vf = policy.mlp_extractor(features)
    return latent_pi, policy.value_net(latent_vf)[:, 0]


def masked_forward(policy, observations, masks, values: bool = True):
    """:func:`forward` with the logits masked: ``-inf`` where ``masks`` (bool, one row per
    observation) is false. A dense head over a wide space (Scala's 7,744 actions;
    :data:`~sky_envs.agents.legal_actions.SPARSE_FROM` or more) scores only the actions legal
    somewhere in the batch: the same numbers up to float rounding (a product over fewer rows
    may be summed in another order: on some CPUs the last bits differ), without reading the
    whole head (8 MB in Scala) for the few rows of a self-play opponent's batch."""
    import torch

    from sky_envs.agents.legal_actions import SPARSE_FROM
    from sky_envs.agents.possible_rows import PossibleRowsLinear, dense_head_rows

    masks = torch.as_tensor(masks, dtype=torch.bool)
    head = policy.action_net
    if type(head) not in (torch.nn.Linear, PossibleRowsLinear) or head.out_features < SPARSE_FROM:
        logits, value = forward(policy, observations, values)
        return logits.masked_fill(~masks, -torch.inf), value
    latent_pi, value = _latent_and_values(policy, observations, values)
    used = masks.any(dim=0).nonzero().squeeze(1)
    rows = dense_head_rows(head, used)
    logits = torch.full(masks.shape, -torch.inf, dtype=latent_pi.dtype)
    logits[:, used] = torch.nn.functional.linear(latent_pi, head.weight[rows], head.bias[rows])
    return logits.masked_fill_(~masks, -torch.inf), value


def build_policy(spec: dict, observation_shape, num_actions: int, learning_rate: float = 3e-4, action_cells=None,
                 stack_moves=None, orthogonal_init: bool = True):
    """An untrained policy (:func:`policy_class`) for these shapes (size checked first);
    ``action_cells`` and ``stack_moves`` are the game's (:func:`game_layout`), needed by a
    pairs and a moves policy head. ``orthogonal_init=False`` leaves out SB3's orthogonal
    initialisation (torch's default one stays), for weights loaded right after: the QR
    decompositions of a wide head (Scala's 7,744 x 256) cost more than loading it."""
    from gymnasium import spaces

    check_size(spec, observation_shape, num_actions)
    kwargs = policy_kwargs(spec, observation_shape, num_actions, action_cells, stack_moves)
    kwargs["ortho_init"] = orthogonal_init
    observation_space = spaces.Box(-np.inf, np.inf, shape=tuple(observation_shape), dtype=np.float32)
    return policy_class(spec)(observation_space, spaces.Discrete(num_actions), lambda _: learning_rate, **kwargs)


def share_weights(policy, source):
    """``policy`` with every parameter replaced by ``source``'s of the same name (the same
    tensors, not copies), returned: two policies of an ``any_board`` network built for
    different boards then train and play as one (a step on either's loss moves both)."""
    for name, _ in list(policy.named_parameters()):
        owner, _, leaf = name.rpartition(".")
        setattr(policy.get_submodule(owner), leaf, source.get_parameter(name))
    return policy
