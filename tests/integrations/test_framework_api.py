"""What RL frameworks read besides observations: PettingZoo's global ``state()`` /
``state_space`` (centralised critics) and infos with fixed keys, shapes and dtypes."""

import numpy as np
import pytest

import sky_envs
from sky_envs.core.env import INFO_KEYS

ENV_IDS = ["sky_scrapers_v0", "scala_v0", "highrise_heist_v0", "golden_rush_v0", "skybridge_v0", "sky_towers_v0"]


def random_game(env, seed, max_steps=2000):
    """Play one random game through the AEC loop, yielding before every ``last``/``step``."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for steps, agent in enumerate(env.agent_iter(max_steps)):
        yield agent
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    yield None


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_state_is_in_state_space_at_every_step(env_id):
    env = sky_envs.make(env_id)
    space = env.state_space
    game = env.unwrapped.game
    assert space.shape == game.state_shape and space.dtype == np.float32
    for seed in range(2):
        for agent in random_game(env, seed):
            state = env.state()
            assert state.shape == space.shape and state.dtype == np.float32
            assert space.contains(state)
            to_move = state[..., -game.num_players:]
            seat = env.unwrapped.game_state.current_player
            if seat >= 0:
                assert to_move[..., seat].all() and to_move.sum() == to_move[..., seat].size
                seat_block = game.observation_shape[-1]
                np.testing.assert_array_equal(state[..., seat * seat_block:(seat + 1) * seat_block],
                                              env.observe(env.possible_agents[seat])["observation"])
            else:
                assert not to_move.any()


def test_state_before_reset_is_an_error():
    env = sky_envs.make("scala_v0")
    with pytest.raises(AssertionError, match="reset"):
        env.state()


def test_sky_towers_state_holds_every_hand():
    """The full-information view: each seat's own hand, which no other seat observes."""
    env = sky_envs.make("sky_towers_v0")
    env.reset(seed=3)
    state, game = env.state(), env.unwrapped.game_state
    block = env.unwrapped.game.observation_shape[-1]
    for seat in range(game.num_players):
        hand = state[seat * block:seat * block + 10]   # the observer's own hand comes first
        assert hand.tolist() == [float(c) for c in game.hands[seat][1:]]


def check_info(info, players):
    assert set(info) == set(INFO_KEYS)
    assert type(info["turn"]) is int and type(info["phase"]) is int and type(info["illegal_action"]) is int
    assert info["scores"].dtype == np.float32 and info["scores"].shape == (players,)
    assert info["winners"].dtype == np.int8 and info["winners"].shape == (players,)
    assert set(info["winners"].tolist()) <= {0, 1}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_infos_have_fixed_keys_shapes_and_dtypes_at_every_step(env_id):
    env = sky_envs.make(env_id)
    players = env.unwrapped.game.num_players
    for seed in range(2):
        turns = 0
        for agent in random_game(env, seed):
            for info in env.infos.values():
                check_info(info, players)
            if agent is None:
                break
            info = env.infos[agent]
            state = env.unwrapped.game_state
            assert info["phase"] == state.phase_index() and info["illegal_action"] == -1
            if state.current_player >= 0:
                assert info["turn"] == turns and not info["winners"].any()
                turns += 1
        state = env.unwrapped.game_state
        assert state.is_over()
        # every agent's last() saw the final infos: scores and winners of the finished game
        np.testing.assert_array_equal(info["scores"], np.asarray(state.score_vector(), np.float32))
        expected = np.zeros(players, np.int8)
        if state.is_terminal():
            expected[state.info()["winners"]] = 1
        np.testing.assert_array_equal(info["winners"], expected)


def test_infos_name_the_illegal_action_that_ended_the_game():
    env = sky_envs.make("scala_v0")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="Illegal move"):
        env.step(illegal)
    for info in env.infos.values():
        check_info(info, 2)
        assert info["illegal_action"] == illegal and not info["winners"].any()


def test_infos_are_not_edited_after_the_step_that_gave_them():
    """Frameworks keep infos by reference: a later step must not change an earlier one."""
    env = sky_envs.make("sky_scrapers_v0")
    seen = []
    for agent in random_game(env, 0):
        if agent is not None:
            info = env.infos[agent]
            seen.append((info, {key: np.copy(value) for key, value in info.items()}))
    for info, copy in seen:
        assert all(np.array_equal(info[key], copy[key]) for key in copy)
        assert not info["scores"].flags.writeable and not info["winners"].flags.writeable
