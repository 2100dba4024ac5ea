"""Sky Scrapers rules engine (documented in :mod:`sky_envs.sky_scrapers_v0`)."""

from sky_envs.games.sky_scrapers.game import SkyScrapersGame
from sky_envs.games.sky_scrapers.state import SkyScrapersState

__all__ = ["SkyScrapersGame", "SkyScrapersState"]
