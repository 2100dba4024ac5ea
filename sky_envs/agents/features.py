"""The input layer of trained policies (imports torch and Stable-Baselines3)."""

from __future__ import annotations

import torch
from stable_baselines3.common.torch_layers import FlattenExtractor


class Log1pFlatten(FlattenExtractor):
    """Flatten the observation, then ``sign(x) * log1p(|x|)`` (see ``policy_kwargs``)."""

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        flat = super().forward(observations)
        return torch.sign(flat) * torch.log1p(torch.abs(flat))
