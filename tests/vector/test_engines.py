"""Every game's hook hands ``sky_envs.vector`` its compiled engine, from the game's own folder;
engines that step on several threads leave a process free to fork."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

import sky_envs
from sky_envs import vector
from sky_envs.games.scala.batched import PARALLEL_FROM

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


def _play_scala(num_envs: int) -> int:
    venv = vector.make("scala_v0", num_envs, seed=0)
    batch, rng = venv.reset(), np.random.default_rng(0)
    for _ in range(20):
        batch = venv.step(vector.random_actions(batch.action_mask, rng))
    return int(batch.current_player.sum())


def _child(queue) -> None:
    queue.put(_play_scala(PARALLEL_FROM))


def test_a_process_that_stepped_on_several_threads_can_fork():
    """A child forked after a batch was stepped on several threads plays on: the threads are
    Python's, started again in the child (with numba's ``parallel=True`` on GNU OpenMP, its
    default layer on Linux, the child would be killed)."""
    expected = _play_scala(PARALLEL_FROM)                    # threads started in this process
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue,))
    child.start()
    child.join(120)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0 and queue.get(timeout=5) == expected
