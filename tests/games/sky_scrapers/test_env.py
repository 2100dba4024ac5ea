"""Sky Scrapers through PettingZoo's own test utilities, and property tests of the engine."""

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

import sky_envs
from sky_envs import sky_scrapers_v0
from sky_envs.games.sky_scrapers import SkyScrapersGame

OPTION_GRID = [
    {},
    {"players": 4},
    {"lines": "orthogonal"},
    {"lines": "hex", "positioning": "strategic", "first": "random", "board": "square", "rows": 4, "cols": 5},
    {"board": "random", "positioning": "random", "rows": 5, "cols": 7},
    {"board": "random", "positioning": "strategic", "lines": "hex", "rows": 6, "cols": 6, "cells": (10, 20)},
    {"board": "random", "positioning": "random", "players": 4, "rows": 7, "cols": 7},
    {"board": ".##./..../..../.##.", "positioning": "strategic", "tiles_per_player": 4},
    {"positioning": "random", "skyscraper_height": 3, "tiles_per_player": 12},
]


@pytest.mark.parametrize("options", OPTION_GRID, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_pettingzoo_api_seed_and_render(options):
    api_test(sky_scrapers_v0.env(**options), num_cycles=300)
    seed_test(lambda: sky_scrapers_v0.env(**options), num_cycles=100)
    render_test(lambda render_mode=None: sky_scrapers_v0.env(render_mode=render_mode, **options))


def test_pettingzoo_registry_and_make():
    env = pettingzoo.make("aec", "sky_envs/sky_scrapers-v0", players=4)
    env.reset(seed=3)
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    assert env.unwrapped.game_state.board.rows == 8
    assert "sky_scrapers_v0" in sky_envs.env_ids()


def test_rgb_render_is_a_picture_of_the_board():
    env = sky_scrapers_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > 200 and len(np.unique(image.reshape(-1, 3), axis=0)) > 4


def random_game(options, seed, max_steps=400):
    """Play a seeded random game on the engine, yielding every state before each action."""
    game = SkyScrapersGame(**options)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    for _ in range(max_steps):
        if state.current_player < 0:
            break
        yield state
        state.apply(int(rng.choice(state.legal_actions())))
    yield state


configs = st.sampled_from(OPTION_GRID)


@settings(max_examples=25, deadline=None)
@given(options=configs, seed=st.integers(0, 2**31))
def test_tiles_are_conserved_and_invariants_hold(options, seed):
    placed_before = None
    for state in random_game(options, seed):
        tiles = int(state.heights.sum())
        to_place = int(state.tiles_left.sum())
        if placed_before is not None:
            assert tiles + to_place == placed_before
        placed_before = tiles + to_place
        assert state.heights[-1] == 0
        assert np.all((state.heights[:-1] > 0) == (state.tops >= 0))
        assert not np.any(state.heights[:-1][~state.board.cells])
        if state.current_player >= 0:
            assert state.legal_mask().any()
        for seat in range(state.num_players):
            obs = state.observation(seat)
            assert obs.shape == state.game.observation_shape
            assert obs.min() >= 0 and obs.max() <= state.game.observation_high


@settings(max_examples=25, deadline=None)
@given(options=configs, seed=st.integers(0, 2**31))
def test_text_round_trips_exactly_at_every_step(options, seed):
    for state in random_game(options, seed, max_steps=60):
        text = state.to_text()
        again = state.game.state_from_text(text)
        assert again.to_text() == text
        assert again.current_player == state.current_player
        np.testing.assert_array_equal(again.legal_mask(), state.legal_mask())


@settings(max_examples=20, deadline=None)
@given(options=configs, seed=st.integers(0, 2**31))
def test_clones_are_independent(options, seed):
    states = list(random_game(options, seed, max_steps=30))
    state = states[-1] if states[-1].current_player >= 0 else states[0]
    if state.current_player < 0:
        return
    before = state.to_text()
    twin = state.clone()
    twin.apply(int(twin.legal_actions()[0]))
    assert state.to_text() == before
    assert twin.to_text() != before or twin.current_player != state.current_player


@settings(max_examples=15, deadline=None)
@given(options=configs, seed=st.integers(0, 2**31))
def test_same_seed_same_game(options, seed):
    first = [s.to_text() for s in random_game(options, seed)]
    second = [s.to_text() for s in random_game(options, seed)]
    assert first == second


def test_random_boards_differ_across_seeds_through_the_env():
    env = sky_scrapers_v0.env(board="random", positioning="random", rows=6, cols=6)
    texts = set()
    for seed in range(6):
        env.reset(seed=seed)
        texts.add(env.unwrapped.game_state.to_text())
        env.reset(seed=seed)
        assert env.unwrapped.game_state.to_text() in texts
    assert len(texts) == 6


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_GRID)
def test_long_random_play_fuzz(options):
    for seed in range(3000):
        states = list(random_game(options, seed, max_steps=10_000))
        final = states[-1]
        assert final.is_terminal(), "every game ends by the rules well before max_turns"
        winners = final.winners()
        r = final.returns()
        if len(winners) < final.num_players:
            assert all(r[s] == 1.0 for s in winners) and r.sum() == 2 * len(winners) - final.num_players
        else:
            assert not r.any()


def test_deepcopy_and_pickle_mid_game_replay_identically():
    import copy
    import pickle

    env = sky_scrapers_v0.env(board="random", positioning="strategic", rows=5, cols=5)
    env.reset(seed=11)
    for _ in range(7):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for e in [env, *twins]:
        for _ in range(10):
            if e.unwrapped.game_state.current_player < 0:
                break
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1]))
    assert len({e.unwrapped.game_state.to_text() for e in [env, *twins]}) == 1
