"""Game-agnostic core: the State protocol, the generic AEC env, the registry, helpers."""

from sky_envs.core.env import SkyEnv
from sky_envs.core.state import Game, GameState, IllegalActionError

__all__ = ["Game", "GameState", "IllegalActionError", "SkyEnv"]
