"""The input layers of trained policies (import torch and Stable-Baselines3).

See :mod:`sky_envs.agents.network` for the specs that choose between them.
"""

from __future__ import annotations

import torch
from gymnasium import spaces
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

    def __init__(self, observation_space: spaces.Box, channels: int = 64, blocks: int = 4, head_channels: int = 8):
        rows, cols, planes = observation_space.shape
        super().__init__(observation_space, features_dim=head_channels * rows * cols)
        self.stem = nn.Conv2d(planes, channels, 3, padding=1)
        self.blocks = nn.Sequential(*(ResidualBlock(channels) for _ in range(blocks)))
        self.head = nn.Conv2d(channels, head_channels, 1)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = log_scale(observations).permute(0, 3, 1, 2)
        x = self.blocks(torch.relu(self.stem(x)))
        return torch.relu(self.head(x)).flatten(1)
