"""The layers of trained policies beyond SB3's own (import torch and Stable-Baselines3):
input layers, and the policy heads for moves between board cells (Scala) and for stacks that
move as far as they are high (Sky Scrapers), with the board-free variant of the latter
(:class:`AnyBoardPolicy`: one set of weights for every box size, line set and seat count).

See :mod:`sky_envs.agents.network` for the specs that choose between them.
"""

from __future__ import annotations

import math

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, FlattenExtractor
from torch import nn

from sky_envs.agents.legal_actions import LegalActionsPolicy
from sky_envs.core.state import StackMoves

#: the seats an any_board network reads: a game with fewer seats fills the first of its seat planes
SEATS = 4


def log_scale(x: torch.Tensor) -> torch.Tensor:
    """``sign(x) * log1p(|x|)``: raw counts of every range near the unit range.

    Computed as ``log1p(|x|)`` with ``x``'s sign copied on, in place: two passes over the
    batch fewer than the formula, with equal values (a ``-0.0`` entry keeps its sign bit, where
    the formula gives ``+0.0``)."""
    return torch.log1p(x.abs()).copysign_(x)


class Log1pFlatten(FlattenExtractor):
    """Flatten the observation, then log-scale it. Where the observation space's lower bounds
    are all >= 0 (a game's declared ``observation_low``, as the learner's env sees it), that is
    ``log1p(x)`` alone: equal to :func:`log_scale` for every ``x >= 0`` (``-0.0`` included),
    two passes over the batch fewer."""

    def __init__(self, observation_space: spaces.Box):
        super().__init__(observation_space)
        self.nonnegative = bool(observation_space.low.min() >= 0)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        flat = super().forward(observations)
        return torch.log1p(flat) if self.nonnegative else log_scale(flat)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        # the block starts as the identity, so a deep trunk trains as stably as a shallow one
        nn.init.zeros_(self.conv2.weight)
        nn.init.zeros_(self.conv2.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class BoardResNet(BaseFeaturesExtractor):
    """Channels-last board planes -> 3x3 conv -> residual blocks -> 1x1 conv -> flat features.

    No normalisation layers: PPO switches between training and evaluation modes, and
    batch statistics would make a policy's action depend on the batch it is in.
    """

    def __init__(self, observation_space: spaces.Box, channels: int = 64, blocks: int = 4, head_channels: int = 8,
                 head_activation: bool = True):
        rows, cols, planes = observation_space.shape
        super().__init__(observation_space, features_dim=head_channels * rows * cols)
        self.stem = nn.Conv2d(planes, channels, 3, padding=1)
        self.blocks = nn.Sequential(*(ResidualBlock(channels) for _ in range(blocks)))
        self.head = nn.Conv2d(channels, head_channels, 1)
        # without it the planes can be negative: CellPairsHead's products need both signs
        self.head_activation = head_activation

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = log_scale(observations).permute(0, 3, 1, 2)
        x = self.head(self.blocks(torch.relu(self.stem(x))))
        return (torch.relu(x) if self.head_activation else x).flatten(1)


class CellPairsHead(nn.Module):
    """Logits of moves between board cells (``action = from * n + to`` over n cells).

    The features are a board's planes, flattened channel by channel; half of them give each
    cell a vector u, the other half a vector v, and a move scores u(from) . v(to) / sqrt(d)
    plus a bias of its own. The head sees both ends of the move through the convolutional
    trunk, with a few hundred weights per plane instead of a dense layer to every action:
    on Scala positions labelled by alpha-beta@2, such a head picked one of the teacher's
    best moves in 76% of held-out positions against 72% for the dense head of 15x the
    weights (see ``training/README.md``).
    """

    def __init__(self, head_channels: int, cells, board_cells: int):
        super().__init__()  # head_channels is even: network.normalize_spec checks it
        self.planes, self.board_cells, self.half = head_channels, board_cells, head_channels // 2
        self.register_buffer("cells", torch.as_tensor(list(cells), dtype=torch.long), persistent=False)
        self.bias = nn.Parameter(torch.zeros(len(cells) ** 2))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        planes = features.view(len(features), self.planes, self.board_cells)[:, :, self.cells]
        u, v = planes[:, :self.half], planes[:, self.half:]
        pairs = torch.einsum("bdf,bdt->bft", u, v).flatten(1)
        return pairs / math.sqrt(self.half) + self.bias

    def pair_scores(self, features: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """:meth:`forward`'s logit of move ``actions[k]`` in row ``rows[k]``, for those pairs only."""
        planes = features.view(len(features), self.planes, self.board_cells)[:, :, self.cells]
        starts, ends = actions // len(self.cells), actions % len(self.cells)
        u, v = planes[rows, :self.half, starts], planes[rows, self.half:, ends]     # (pairs, half) each
        return (u * v).sum(dim=1) / math.sqrt(self.half) + self.bias[actions]


class CellPairsPolicy(LegalActionsPolicy):
    """sb3-contrib's masked actor-critic with :class:`CellPairsHead` as its action net (the
    policy side has no hidden layers: the head reads the trunk's planes directly); PPO's
    distribution covers the legal moves only (:class:`~sky_envs.agents.legal_actions.LegalActionsPolicy`)."""

    def __init__(self, *args, action_cells=(), **kwargs):
        self.action_cells = tuple(int(cell) for cell in action_cells)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        rows, cols, _ = self.observation_space.shape
        planes = self.features_extractor.features_dim // (rows * cols)
        self.action_net = CellPairsHead(planes, self.action_cells, rows * cols)
        # the optimizer must hold the new head's weights, not the replaced linear layer's
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "action_cells": self.action_cells}

    def action_scores(self, latent_pi: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        return self.action_net.pair_scores(latent_pi, rows, actions)


class StackMovesTrunk(BaseFeaturesExtractor):
    """The residual trunk of a moves head: flat features ``[heights (B), trunk planes (C x B)]``,
    the heights (the sum of the observation's ``height_planes``, not log-scaled) first, so
    that :class:`StackMovesHead` can find where each stack lands."""

    def __init__(self, observation_space: spaces.Box, channels: int = 64, blocks: int = 4, height_planes=(1,)):
        rows, cols, planes = observation_space.shape
        super().__init__(observation_space, features_dim=(channels + 1) * rows * cols)
        self.height_planes = tuple(int(plane) for plane in height_planes)
        self.stem = nn.Conv2d(planes, channels, 3, padding=1)
        self.blocks = nn.Sequential(*(ResidualBlock(channels) for _ in range(blocks)))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        heights = observations[..., list(self.height_planes)].sum(-1).flatten(1)
        x = log_scale(observations).permute(0, 3, 1, 2)
        return torch.cat([heights, self.blocks(torch.relu(self.stem(x))).flatten(1)], 1)


class StackMovesLatents(nn.Module):
    """SB3's ``mlp_extractor`` for a moves head: the policy side gets the trunk's features
    as they are; the value side a 1x1 convolution to ``head_channels`` planes, then the
    ``hidden`` layers."""

    cell_planes = 1  # the per-cell feature planes before the trunk's: the heights

    def __init__(self, cells: int, channels: int, head_channels: int, hidden, activation: type[nn.Module]):
        super().__init__()
        self.cells, self.channels = cells, channels
        self.value_planes = nn.Conv1d(channels, head_channels, 1)
        layers, width = [], self.value_width(head_channels, cells)
        for size in hidden:
            layers += [nn.Linear(width, size), activation()]
            width = size
        self.value_layers = nn.Sequential(*layers)
        self.latent_dim_pi, self.latent_dim_vf = (channels + self.cell_planes) * cells, width

    @staticmethod
    def value_width(head_channels: int, cells: int) -> int:
        """The width of what the value head's hidden layers read: every cell's head planes."""
        return head_channels * cells

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return features

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        trunk = features[:, self.cells:].view(len(features), self.channels, self.cells)
        return self.value_layers(torch.relu(self.value_planes(trunk)).flatten(1))


class StackMovesHead(nn.Module):
    """Logits of a stacking game's actions (:class:`~sky_envs.core.state.StackMoves`).

    A move is scored from two of the trunk's cell vectors: where the stack starts (u) and
    where it lands (v, looked up in the layout's table by the stack's height), plus its
    direction's own vector: ``w . relu(u(start) + v(landing) + e(direction))``. A dense
    head must learn for every cell, direction and height which cell the move reaches; this
    one is told, and sees what lies there through the trunk. Cell actions score the trunk
    at their cell; any other actions its mean over the cells.
    """

    def __init__(self, channels: int, width: int, layout, cells: int, num_actions: int):
        super().__init__()
        self.cells, self.channels, self.directions = cells, channels, layout.directions
        self.register_buffer("targets", torch.tensor(layout.targets.tolist(), dtype=torch.long), persistent=False)
        self.start = nn.Linear(channels, width)
        self.landing = nn.Linear(channels, width)
        self.direction = nn.Parameter(torch.zeros(layout.directions, width))
        self.score = nn.Linear(width, 1)
        self.cell_actions = nn.Linear(channels, layout.cell_actions) if layout.cell_actions else None
        rest = num_actions - cells * (layout.directions + layout.cell_actions)
        self.other_actions = nn.Linear(channels, rest) if rest else None

    def split(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(heights, trunk, pooled)``: the stack heights (batch, B), the trunk's cell vectors
        (batch, B, C) and their mean over the cells (batch, C), which the actions not tied to
        a cell read."""
        heights = features[:, :self.cells]
        trunk = features[:, self.cells:].view(len(features), self.channels, self.cells).transpose(1, 2)
        return heights, trunk, trunk.mean(1)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        batch = len(features)
        heights, trunk, pooled = self.split(features)
        heights = heights.round().long().clamp(0, len(self.targets) - 1)
        landing = self.landing(trunk)
        landing = torch.cat([landing, landing.new_zeros(batch, 1, landing.shape[-1])], 1)  # index B: off the board
        where = self.targets[heights, torch.arange(self.cells, device=features.device)]  # (batch, B, directions)
        landed = torch.gather(landing, 1, where.flatten(1).unsqueeze(-1).expand(-1, -1, landing.shape[-1]))
        moves = self.start(trunk).unsqueeze(2) + landed.view(batch, self.cells, self.directions, -1) + self.direction
        logits = [self.score(torch.relu(moves)).flatten(1)]  # action cell * directions + d
        if self.cell_actions is not None:
            logits.append(self.cell_actions(trunk).transpose(1, 2).flatten(1))  # action B * directions + k * B + cell
        if self.other_actions is not None:
            logits.append(self.other_actions(pooled))
        return torch.cat(logits, 1)


class StackMovesPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic with :class:`StackMovesTrunk`, :class:`StackMovesLatents`
    and :class:`StackMovesHead` (``net_arch["vf"]`` is the value head's hidden layers)."""

    latents_class: type[StackMovesLatents] = StackMovesLatents
    head_class: type[nn.Module] = StackMovesHead

    def __init__(self, *args, stack_moves=None, head_channels: int = 8, **kwargs):
        self.stack_moves = StackMoves.from_dict(stack_moves)
        self.head_channels = int(head_channels)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        rows, cols, _ = self.observation_space.shape
        channels = self.features_extractor.features_dim // (rows * cols) - self.latents_class.cell_planes
        self.mlp_extractor = self.latents_class(rows * cols, channels, self.head_channels, self.net_arch["vf"],
                                                self.activation_fn)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        rows, cols, _ = self.observation_space.shape
        self.action_net = self.head_class(self.mlp_extractor.channels, self.head_channels, self.stack_moves,
                                          rows * cols, int(self.action_space.n))
        # the optimizer must hold the new head's weights, not the replaced linear layer's
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "stack_moves": self.stack_moves.as_dict(),
                "head_channels": self.head_channels}


# ------------------------------------------------------------------ any board
def any_board_input_planes(planes: int, seats: int, directions: int) -> int:
    """The input planes of :class:`AnyBoardTrunk`'s first convolution for an observation of
    ``planes`` planes with ``seats`` height planes and ``directions`` move directions."""
    return 1 + SEATS + (planes - 1 - seats) + 1 + directions


class MaskedResidualBlock(ResidualBlock):
    """A :class:`ResidualBlock` whose planes are zeroed off the board after each convolution,
    so that cells outside the board (holes, or the rest of a larger box) look exactly like
    the convolution's zero padding."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        inner = torch.relu(self.conv1(x)) * mask
        return torch.relu(x + self.conv2(inner) * mask)


class AnyBoardTrunk(BaseFeaturesExtractor):
    """The residual trunk of :class:`AnyBoardPolicy`: weights that fit any box, line set and
    seat count. Flat features ``[heights (B), board cells (B), trunk planes (C x B)]``.

    The input is rebuilt in a layout that does not depend on the game's options: plane 0
    (the board's cells), the ``height_planes`` (one per seat, from the observer's view) in
    :data:`SEATS` slots (a 2-seat game's last two are zeros), the observation's other
    planes, a constant plane ``seats / SEATS``, and one plane per move direction that is 1
    where the cell's neighbour that way is a board cell (from the layout's landing table:
    directions outside the line set never have one), which tells the convolutions the
    board's edges, holes and lines. Every plane is zero off the board, before and after
    each convolution, so the same board embedded in a larger box gives the same planes.
    """

    def __init__(self, observation_space: spaces.Box, channels: int = 64, blocks: int = 4, stack_moves=None):
        rows, cols, planes = observation_space.shape
        super().__init__(observation_space, features_dim=(channels + 2) * rows * cols)
        layout = StackMoves.from_dict(stack_moves)
        self.height_planes = layout.height_planes
        self.other_planes = tuple(p for p in range(1, planes) if p not in self.height_planes)
        self.seats = len(self.height_planes)
        neighbours = layout.targets[min(1, len(layout.targets) - 1)]  # (B, directions): one step, or B
        self.register_buffer("neighbours", torch.tensor(neighbours.tolist(), dtype=torch.long), persistent=False)
        self.stem = nn.Conv2d(any_board_input_planes(planes, self.seats, layout.directions), channels, 3, padding=1)
        self.blocks = nn.ModuleList(MaskedResidualBlock(channels) for _ in range(blocks))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        batch, rows, cols, _ = observations.shape
        mask = (observations[..., 0] > 0).to(observations.dtype)  # (batch, rows, cols)
        flat = mask.flatten(1)
        seats = observations[..., list(self.height_planes)]
        heights = seats.sum(-1).flatten(1) * flat
        padded = torch.cat([flat, flat.new_zeros(batch, 1)], 1)  # index B: off the board
        neighbours = padded[:, self.neighbours].view(batch, rows, cols, -1)
        planes = [mask[..., None], seats, seats.new_zeros(batch, rows, cols, SEATS - self.seats),
                  observations[..., list(self.other_planes)], torch.full_like(mask, self.seats / SEATS)[..., None],
                  neighbours]
        x = log_scale(torch.cat(planes, -1) * mask[..., None]).permute(0, 3, 1, 2)
        board = mask[:, None]
        x = torch.relu(self.stem(x)) * board
        for block in self.blocks:
            x = block(x, board)
        return torch.cat([heights, flat, x.flatten(1)], 1)


def board_mean(planes: torch.Tensor, board: torch.Tensor) -> torch.Tensor:
    """The mean of ``planes`` (batch, K, B) over the board's cells (``board``: (batch, B) of 0/1)."""
    return (planes * board[:, None]).sum(-1) / board.sum(1, keepdim=True).clamp(min=1)


class AnyBoardLatents(StackMovesLatents):
    """SB3's ``mlp_extractor`` of :class:`AnyBoardPolicy`: the policy side gets the trunk's
    features as they are; the value side a 1x1 convolution to ``head_channels`` planes, their
    mean and maximum over the board's cells, then the ``hidden`` layers: no weight depends
    on the board's size."""

    cell_planes = 2  # the heights and the board's cells

    @staticmethod
    def value_width(head_channels: int, cells: int) -> int:
        return 2 * head_channels  # the planes' mean and maximum

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        cells = self.cells
        board = features[:, cells:2 * cells]
        trunk = features[:, 2 * cells:].view(len(features), self.channels, cells)
        planes = torch.relu(self.value_planes(trunk)) * board[:, None]  # >= 0, and 0 off the board
        return self.value_layers(torch.cat([board_mean(planes, board), planes.amax(-1)], 1))


class AnyBoardMovesHead(StackMovesHead):
    """:class:`StackMovesHead` over :class:`AnyBoardTrunk`'s features: the actions not tied to
    a cell read the trunk's mean over the board's cells (not the box's)."""

    def split(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        cells = self.cells
        board = features[:, cells:2 * cells]
        trunk = features[:, 2 * cells:].view(len(features), self.channels, cells)
        return features[:, :cells], trunk.transpose(1, 2), board_mean(trunk, board)


class AnyBoardPolicy(StackMovesPolicy):
    """:class:`StackMovesPolicy` whose weights fit every board of a stacking game
    (``any_board: true`` in the network spec): :class:`AnyBoardTrunk`, :class:`AnyBoardLatents`
    and :class:`AnyBoardMovesHead`. The policy built for one game's shapes and layout loads
    the weights of one built for any other."""

    latents_class = AnyBoardLatents
    head_class = AnyBoardMovesHead
