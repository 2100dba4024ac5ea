"""Every game's hook hands ``sky_envs.vector`` its compiled engine, from the game's own folder."""

from __future__ import annotations

import pytest

import sky_envs
from sky_envs import vector

CONFIGURATIONS = [("sky_scrapers_v0", {}), ("scala_v0", {}), ("scala_v0", {"split_rule": "illegal", "max_turns": 5}),
                  ("highrise_heist_v0", {}), ("golden_rush_v0", {}), ("skybridge_v0", {}), ("sky_towers_v0", {})]


@pytest.mark.parametrize("env_id, options", CONFIGURATIONS)
def test_the_hook_returns_the_games_compiled_engine(env_id, options):
    game = sky_envs.make_game(env_id, **options)
    folder = type(game).__module__.rsplit(".", 1)[0]
    for keep in (True, False):
        engine = game.batched_games(3, keep_final_observation=keep)
        assert engine is not None and type(engine).__module__ == f"{folder}.batched"
        assert (engine.final_observation is not None) == keep
    venv = vector.make(env_id, 2, keep_final_observation=False, **options)
    assert venv.compiled and venv.reset().final_observation is None
    assert not vector.make(env_id, 2, engine="python", **options).compiled


def test_every_shipped_game_is_covered():
    assert {env_id for env_id, _ in CONFIGURATIONS} == set(sky_envs.BUILTIN_ENV_IDS)
