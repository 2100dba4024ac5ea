"""The layers of trained policies beyond SB3's own (import torch and Stable-Baselines3):
input layers, and the policy head for moves between board cells.

See :mod:`sky_envs.agents.network` for the specs that choose between them.
"""

from __future__ import annotations

import math

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, FlattenExtractor
from torch import nn


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
