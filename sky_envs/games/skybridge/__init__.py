"""Skybridge rules engine (documented in :mod:`sky_envs.skybridge_v0`)."""

from sky_envs.games.skybridge.game import SkybridgeGame
from sky_envs.games.skybridge.state import SkybridgeState

__all__ = ["SkybridgeGame", "SkybridgeState"]
