"""Scala rules engine (documented in :mod:`sky_envs.scala_v0`)."""

from sky_envs.games.scala.game import ScalaGame
from sky_envs.games.scala.state import ScalaState

__all__ = ["ScalaGame", "ScalaState"]
