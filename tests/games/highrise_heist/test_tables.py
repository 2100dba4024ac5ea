"""The lookup-table machinery behind the fast masks and observations of both modes.

The differential tests (``test_reference.py``) check what the tables
produce; these check the bookkeeping they rely on: the per-stand codes kept by
``_recode`` always equal codes computed from scratch, and the shared tables stay out of
copies and pickles.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from sky_envs.games.highrise_heist import GoldenRushGame, HighriseHeistGame

GAMES = [HighriseHeistGame(), HighriseHeistGame(max_turns=30), GoldenRushGame(), GoldenRushGame(mode="teams")]
IDS = ["heist", "heist-max30", "rush-ffa", "rush-teams"]


def cached_facts(state) -> dict:
    facts = {name: getattr(state, name) for name in ("heights", "cap_bits", "groups", "_over_by_rules")}
    for name in ("target_cols", "place_ids", "keys", "cells"):
        facts[name] = getattr(state, name).tolist()
    # the rows after the stands' are fixed, except the swap's, set by each transfer mask
    facts["source_rows"] = state.source_rows[:len(state.stands)].tolist()
    if hasattr(state, "cap"):
        facts["cap"] = state.cap
    return facts


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_incremental_codes_equal_codes_from_scratch(game):
    """After every decision the cached codes equal those of the same position read afresh."""
    for seed in range(8):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(rng)
        while True:
            fresh = game.state_from_text(state.to_text())
            assert cached_facts(state) == cached_facts(fresh), state.to_text()
            np.testing.assert_array_equal(state.legal_mask(), fresh.legal_mask())
            if state.current_player < 0:
                break
            state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_clones_keep_their_own_codes(game):
    rng = np.random.default_rng(5)
    state = game.new_initial_state(rng)
    for _ in range(20):
        state.apply(int(rng.choice(state.legal_actions())))
    before = cached_facts(state)
    twin = state.clone()
    while twin.current_player >= 0:
        twin.apply(int(twin.legal_actions()[0]))
    assert cached_facts(state) == before


def test_swap_recodes_every_stand():
    game = HighriseHeistGame()
    state = game.new_initial_state(np.random.default_rng(0))
    state.apply(game.layout.placement_action({4: 1}))
    assert state.swap_legal()
    state.apply(game.layout.swap)
    fresh = game.state_from_text(state.to_text())
    assert cached_facts(state) == cached_facts(fresh)
    np.testing.assert_array_equal(state.observation(0), fresh.observation(0))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_tables_are_shared_and_left_out_of_copies_and_pickles(game):
    assert type(game)(**game.options()).tables is game.tables  # one set per configuration
    data = pickle.dumps(game)
    assert len(data) < 10_000  # the tables (megabytes) are looked up again, not pickled
    for twin in (pickle.loads(data), copy.deepcopy(game)):
        assert twin.tables is game.tables and twin.options() == game.options()


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_masks_are_read_only_arrays_of_the_layout_size(game):
    rng = np.random.default_rng(1)
    state = game.new_initial_state(rng)
    for _ in range(12):
        mask = state.legal_mask()
        assert mask.shape == (game.num_actions,) and mask.dtype == bool and not mask.flags.writeable
        state.apply(int(rng.choice(state.legal_actions())))
