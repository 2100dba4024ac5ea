"""The State-protocol contract, checked the same way for every registered env.

Each game has its own rule tests; this file holds every game to the invariants the generic
env, the agents and training rely on (see ``sky_envs/core/state.py``).
"""

import copy
import pickle

import numpy as np
import pytest

import sky_envs

BUILTIN = [env_id for env_id in sky_envs.env_ids() if not env_id.startswith("tiny_")]


def random_states(env_id, seed, max_steps=400):
    game = sky_envs.make_game(env_id)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    for _ in range(max_steps):
        yield state
        if state.current_player < 0:
            return
        state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("env_id", BUILTIN)
def test_protocol_invariants_during_random_play(env_id):
    game = sky_envs.make_game(env_id)
    for seed in range(3):
        for state in random_states(env_id, seed):
            mask = state.legal_mask()
            assert mask.dtype == bool and mask.shape == (game.num_actions,)
            if state.current_player >= 0:
                assert 0 <= state.current_player < game.num_players
                assert mask.any(), "the seat to decide always has a legal action"
                assert not state.is_over()
            else:
                assert state.is_over() and not mask.any()
            for seat in range(game.num_players):
                obs = state.observation(seat)
                assert obs.dtype == np.float32 and obs.shape == game.observation_shape
                assert np.all(obs >= game.observation_low) and np.all(obs <= game.observation_high)
            returns = state.returns()
            assert returns.shape == (game.num_players,)
            if not state.is_terminal():
                assert not returns.any()


@pytest.mark.parametrize("env_id", BUILTIN)
def test_legal_actions_are_the_mask_indices_ascending(env_id):
    for seed in range(2):
        for state in random_states(env_id, seed):
            actions = state.legal_actions()
            assert actions.dtype == np.int64 and not actions.flags.writeable
            np.testing.assert_array_equal(actions, np.flatnonzero(state.legal_mask()))
            np.testing.assert_array_equal(state.legal_actions(), actions)   # asked again
            twin = state.clone()
            if state.current_player >= 0:
                twin.apply(int(actions[0]))
                # the clone moved on; the original's list is still its own
                np.testing.assert_array_equal(state.legal_actions(), np.flatnonzero(state.legal_mask()))
                np.testing.assert_array_equal(twin.legal_actions(), np.flatnonzero(twin.legal_mask()))


@pytest.mark.parametrize("env_id", BUILTIN)
def test_text_round_trip_and_clone_independence(env_id):
    for state in random_states(env_id, seed=7, max_steps=120):
        text = state.to_text()
        again = state.game.state_from_text(text)
        assert again.to_text() == text
        assert again.current_player == state.current_player
        np.testing.assert_array_equal(again.legal_mask(), state.legal_mask())
        if state.current_player >= 0:
            twin = state.clone()
            twin.apply(int(twin.legal_actions()[-1]))
            assert state.to_text() == text, "a clone must not share mutable state"


@pytest.mark.parametrize("env_id", BUILTIN)
def test_states_keep_every_attribute_in_slots_and_clones_set_them_all(env_id):
    # see GameState: a state with a __dict__ would fall off the fast attribute path
    for state in random_states(env_id, seed=3, max_steps=80):
        for copy_ in (state, state.clone(), state.game.state_from_text(state.to_text())):
            assert not hasattr(copy_, "__dict__"), f"{type(copy_).__name__} has an undeclared attribute"
            unset = [name for name in type(copy_)._slot_names if not hasattr(copy_, name)]
            assert not unset, f"{type(copy_).__name__} leaves slots unset: {unset}"


@pytest.mark.parametrize("env_id", BUILTIN)
def test_illegal_actions_are_explained(env_id):
    env = sky_envs.make_raw(env_id)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    assert illegal.size, "some action is illegal at the start"
    with pytest.raises(ValueError, match=rf"action {illegal[0]} \(.+\) is illegal for {env.agent_selection}: .+"):
        env.step(int(illegal[0]))
    with pytest.raises(ValueError, match="out of range"):
        env.step(env.action_space(env.agent_selection).n)


@pytest.mark.parametrize("env_id", BUILTIN)
def test_env_round_trips_through_deepcopy_and_pickle(env_id):
    env = sky_envs.make(env_id, render_mode="ansi")
    env.reset(seed=5)
    for _ in range(5):
        if env.unwrapped.game_state.current_player < 0:
            break
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.unwrapped.game_state.to_text() == env.unwrapped.game_state.to_text()
        assert twin.render() == env.render()


@pytest.mark.parametrize("env_id", BUILTIN)
def test_infos_name_the_winners_at_the_end(env_id):
    for max_turns in (None, 3):
        options = {} if max_turns is None else {"max_turns": max_turns}
        env = sky_envs.make(env_id, **options)
        env.reset(seed=2)
        rng = np.random.default_rng(2)
        while env.unwrapped.game_state.current_player >= 0:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        flags = env.infos["player_0"]["winners"]
        assert flags.dtype == np.int8 and flags.shape == (env.num_agents,) and set(flags.tolist()) <= {0, 1}
        winners = np.flatnonzero(flags).tolist()
        if env.unwrapped.game_state.is_truncated():
            assert winners == [] and not any(env.rewards.values())
        else:
            assert winners == env.unwrapped.game_state.info()["winners"]
            positive = [i for i, agent in enumerate(env.possible_agents) if env.rewards[agent] > 0]
            assert set(positive) <= set(winners)


@pytest.mark.parametrize("env_id", BUILTIN)
def test_random_playouts_play_only_legal_moves_to_the_end(env_id):
    for state in random_states(env_id, 4, max_steps=60):
        assert sorted(int(a) for a in state._playout_actions()) == state.legal_actions().tolist()
    game = sky_envs.make_game(env_id)
    start = game.new_initial_state(np.random.default_rng(1))
    ends = []
    for seed in (7, 7, 8):
        world = start.clone()
        returns = world.random_playout(np.random.default_rng(seed))
        assert world.current_player < 0 and np.array_equal(returns, world.returns() if world.is_terminal()
                                                           else np.zeros(game.num_players))
        ends.append(world.to_text())
    assert ends[0] == ends[1], "the same generator state plays the same playout"
    cut = start.clone()
    assert not cut.random_playout(np.random.default_rng(0), max_plies=3).any() and cut.current_player >= 0
    assert start.current_player >= 0  # playouts change only the state they run on


@pytest.mark.parametrize("env_id, options", [(env_id, {}) for env_id in BUILTIN] + [
    ("golden_rush_v0", {"mode": "teams"}), ("golden_rush_v0", {"mode": "teams", "reward": "score"})])
def test_the_seats_of_one_team_share_every_result(env_id, options):
    """``game.teams`` names each seat's team (a search gives teammates one value): one entry
    per seat, and the seats of a team end every game with the same return."""
    game = sky_envs.make_game(env_id, **options)
    teams = np.asarray(game.teams)
    assert teams.shape == (game.num_players,)
    rng = np.random.default_rng(0)
    for seed in range(6):
        state = game.new_initial_state(np.random.default_rng(seed))
        while state.current_player >= 0:
            state.apply(int(rng.choice(state.legal_actions())))
        returns = state.returns()
        for team in set(teams.tolist()):
            assert np.ptp(returns[teams == team]) == 0
