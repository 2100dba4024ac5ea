"""Sky Towers rules engine (documented in :mod:`sky_envs.sky_towers_v0`)."""

from sky_envs.games.sky_towers.game import SkyTowersGame
from sky_envs.games.sky_towers.state import SkyTowersState

__all__ = ["SkyTowersGame", "SkyTowersState"]
