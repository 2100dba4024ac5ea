"""The generic env and the registry, exercised with a game defined outside the package."""

import copy
import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import sky_envs
from sky_envs.core.env import SkyEnv
from tests.tiny_game import NimGame

sky_envs.register("tiny_nim_v0", NimGame, overwrite=True)


def test_registered_game_gets_the_env_for_free():
    assert "tiny_nim_v0" in sky_envs.env_ids()
    env = pettingzoo.make("aec", "sky_envs/tiny_nim-v0", heap=5)
    assert isinstance(env, SkyEnv)
    api_test(env, num_cycles=200)
    seed_test(lambda: sky_envs.make("tiny_nim_v0"), num_cycles=50)
    render_test(lambda render_mode=None: sky_envs.make("tiny_nim_v0", render_mode=render_mode))


def test_ids_accept_both_spellings_and_reject_garbage():
    assert sky_envs.canonical_id("sky_envs/tiny_nim-v0") == "tiny_nim_v0"
    assert isinstance(sky_envs.make("sky_envs/tiny_nim-v0"), SkyEnv)
    with pytest.raises(ValueError, match="unknown env id"):
        sky_envs.make("no_such_game_v0")
    with pytest.raises(ValueError, match="malformed env id"):
        sky_envs.make("Not An Id")
    with pytest.raises(ValueError, match="already registered"):
        sky_envs.register("tiny_nim_v0", NimGame)


def test_seat_without_a_move_is_skipped_and_rewards_reach_everyone():
    env = sky_envs.make("tiny_nim_v0", players=3, heap=9)
    env.reset(options={"position": "stones: 3\nto_move: 0"})
    order = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        order.append(agent)
        assert obs["action_mask"].any()
        env.step(0)
    assert order == ["player_0", "player_2", "player_0"]
    # player_0 took the last stone
    assert env.agents == []


def test_final_rewards_sum_in_last():
    env = sky_envs.make("tiny_nim_v0")
    env.reset(options={"position": "stones: 1\nto_move: 1"})
    env.step(0)
    rewards = {}
    for agent in env.agent_iter():
        _, reward, term, _, _ = env.last()
        assert term
        rewards[agent] = reward
        env.step(None)
    assert rewards == {"player_1": 1.0, "player_0": -1.0}


def test_env_illegal_action_loses_with_a_warning_raw_env_raises():
    env = sky_envs.make("tiny_nim_v0")
    env.reset(options={"position": "stones: 1\nto_move: 0"})
    with pytest.warns(UserWarning, match=r"action 1 .*illegal for player_0"):
        env.step(1)
    assert env.rewards["player_0"] == -1 and env.rewards["player_1"] == 0
    assert all(env.terminations.values())
    with pytest.raises(AssertionError, match="outside the action space"):
        fresh = sky_envs.make("tiny_nim_v0")
        fresh.reset(seed=1)
        fresh.step(5)
    raw = sky_envs.make_raw("tiny_nim_v0")
    raw.reset(options={"position": "stones: 1\nto_move: 0"})
    with pytest.raises(ValueError, match="action 1 .*illegal"):
        raw.step(1)
    with pytest.raises(ValueError, match="not an integer"):
        raw.step(0.7)
    with pytest.raises(ValueError, match="not an integer"):
        raw.game_state.apply("0")
    with pytest.raises(AssertionError, match="outside the action space"):
        fresh.step(0.0)


def test_calls_before_reset_are_errors():
    env = sky_envs.make("tiny_nim_v0")
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), env.render):
        with pytest.raises(AssertionError, match="reset"):
            call()


def test_max_turns_truncates_with_zero_reward():
    env = sky_envs.make("tiny_nim_v0", heap=9, max_turns=2)
    env.reset(options={"position": "stones: 9\nto_move: 0"})
    env.step(0)
    env.step(0)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(r == 0 for r in env.rewards.values())


def test_bad_reset_options_are_rejected():
    env = sky_envs.make("tiny_nim_v0")
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(options={"positon": "x"})
    with pytest.raises(ValueError, match="line 1"):
        env.reset(options={"position": "stones: many"})
    with pytest.raises(ValueError, match="render_mode"):
        sky_envs.make("tiny_nim_v0", render_mode="3d")


def test_deepcopy_and_pickle_mid_game_continue_identically():
    env = sky_envs.make("tiny_nim_v0", heap=30)
    env.reset(options={"position": "stones: 30\nto_move: 0"})
    env.step(1)
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for twin in [env, *twins]:
        twin.step(0)
        twin.step(1)
    texts = {t.game_state.to_text() for t in [env, *twins]}
    assert texts == {"stones: 25\nto_move: 1"}
    np.testing.assert_array_equal(env.observe("player_0")["observation"], twins[1].observe("player_0")["observation"])
