"""sky_envs: PettingZoo environments for five tower-and-stacking games.

>>> import sky_envs
>>> env = sky_envs.make("sky_scrapers_v0", render_mode="ansi")
>>> env.reset(seed=0)

Importing the package registers every env with PettingZoo's registry, so
``pettingzoo.make("aec", "sky_envs/sky_scrapers-v0")`` works too. ``sky_envs.register``
adds a game of your own (any implementation of :class:`sky_envs.core.Game`).
"""

from sky_envs.core.registry import canonical_id, env_ids, make, make_game, make_raw, register
from sky_envs.core.state import Game, GameState, IllegalActionError

__version__ = "0.2.0"

#: built-in games, imported lazily on first use
_BUILTIN_GAMES = {
    "sky_scrapers_v0": "sky_envs.games.sky_scrapers:SkyScrapersGame",
    "scala_v0": "sky_envs.games.scala:ScalaGame",
    "skybridge_v0": "sky_envs.games.skybridge:SkybridgeGame",
    "highrise_heist_v0": "sky_envs.games.highrise_heist:HighriseHeistGame",
    "golden_rush_v0": "sky_envs.games.highrise_heist:GoldenRushGame",
    "sky_towers_v0": "sky_envs.games.sky_towers:SkyTowersGame",
}
for _env_id, _factory in _BUILTIN_GAMES.items():
    register(_env_id, _factory, overwrite=True)

#: the envs this package ships (``env_ids()`` also lists games registered since)
BUILTIN_ENV_IDS: tuple[str, ...] = tuple(sorted(_BUILTIN_GAMES))

__all__ = [
    "BUILTIN_ENV_IDS",
    "Game",
    "GameState",
    "IllegalActionError",
    "canonical_id",
    "env_ids",
    "make",
    "make_game",
    "make_raw",
    "register",
]
