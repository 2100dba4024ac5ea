"""Highrise Heist (2 seats) and its 4-seat Golden Rush mode: one rules core, two games.

Documented in :mod:`sky_envs.highrise_heist_v0` and :mod:`sky_envs.golden_rush_v0`.
"""

from sky_envs.games.highrise_heist.game import GoldenRushGame, HighriseHeistGame
from sky_envs.games.highrise_heist.heist import HeistState
from sky_envs.games.highrise_heist.rush import RushState
from sky_envs.games.highrise_heist.state import StackState

__all__ = ["GoldenRushGame", "HeistState", "HighriseHeistGame", "RushState", "StackState"]
