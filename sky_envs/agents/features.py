"""The layers of trained policies beyond SB3's own (import torch and Stable-Baselines3):
input layers, and the policy heads for moves between board cells (Scala) and for stacks that
move as far as they are high (Sky Scrapers).

See :mod:`sky_envs.agents.network` for the specs that choose between them.
"""

from __future__ import annotations

import math

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, FlattenExtractor
from torch import nn

from sky_envs.core.state import StackMoves


def log_scale(x: torch.Tensor) -> torch.Tensor:
    """``sign(x) * log1p(|x|)``: raw counts of every range near the unit range."""
    return torch.sign(x) * torch.log1p(torch.abs(x))


class Log1pFlatten(FlattenExtractor):
    """Flatten the observation, then log-scale it."""

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return log_scale(super().forward(observations))


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


class CellPairsPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic with :class:`CellPairsHead` as its action net (the
    policy side has no hidden layers: the head reads the trunk's planes directly)."""

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

    def __init__(self, cells: int, channels: int, head_channels: int, hidden, activation: type[nn.Module]):
        super().__init__()
        self.cells, self.channels = cells, channels
        self.value_planes = nn.Conv1d(channels, head_channels, 1)
        layers, width = [], head_channels * cells
        for size in hidden:
            layers += [nn.Linear(width, size), activation()]
            width = size
        self.value_layers = nn.Sequential(*layers)
        self.latent_dim_pi, self.latent_dim_vf = (channels + 1) * cells, width

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

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        batch = len(features)
        heights = features[:, :self.cells].round().long().clamp(0, len(self.targets) - 1)
        trunk = features[:, self.cells:].view(batch, self.channels, self.cells).transpose(1, 2)  # (batch, B, C)
        landing = self.landing(trunk)
        landing = torch.cat([landing, landing.new_zeros(batch, 1, landing.shape[-1])], 1)  # index B: off the board
        where = self.targets[heights, torch.arange(self.cells, device=features.device)]  # (batch, B, directions)
        landed = torch.gather(landing, 1, where.flatten(1).unsqueeze(-1).expand(-1, -1, landing.shape[-1]))
        moves = self.start(trunk).unsqueeze(2) + landed.view(batch, self.cells, self.directions, -1) + self.direction
        logits = [self.score(torch.relu(moves)).flatten(1)]  # action cell * directions + d
        if self.cell_actions is not None:
            logits.append(self.cell_actions(trunk).transpose(1, 2).flatten(1))  # action B * directions + k * B + cell
        if self.other_actions is not None:
            logits.append(self.other_actions(trunk.mean(1)))
        return torch.cat(logits, 1)


class StackMovesPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic with :class:`StackMovesTrunk`, :class:`StackMovesLatents`
    and :class:`StackMovesHead` (``net_arch["vf"]`` is the value head's hidden layers)."""

    def __init__(self, *args, stack_moves=None, head_channels: int = 8, **kwargs):
        self.stack_moves = StackMoves.from_dict(stack_moves)
        self.head_channels = int(head_channels)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        rows, cols, _ = self.observation_space.shape
        channels = self.features_extractor.features_dim // (rows * cols) - 1
        self.mlp_extractor = StackMovesLatents(rows * cols, channels, self.head_channels, self.net_arch["vf"],
                                               self.activation_fn)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        rows, cols, _ = self.observation_space.shape
        self.action_net = StackMovesHead(self.mlp_extractor.channels, self.head_channels, self.stack_moves,
                                         rows * cols, int(self.action_space.n))
        # the optimizer must hold the new head's weights, not the replaced linear layer's
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "stack_moves": self.stack_moves.as_dict(),
                "head_channels": self.head_channels}
