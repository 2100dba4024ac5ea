"""The compiled batched engine (``sky_towers/batched.py``) against the AEC env, bit for bit:
2, 3 and 4 seats, a random first seat, deck and bonus overrides (decks of low cards where
the tower bonuses are won), few row slots (full rows), ``max_turns`` cuts, partial steps,
slots started from real mid-game positions in every phase; game states (hands, deck
order, knowledge and the generator) in and out of slots; the hook that selects the engine."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

import sky_envs
from sky_envs import vector
from sky_envs.games.sky_towers import SkyTowersGame
from sky_envs.games.sky_towers.rules import MAIN, OVER
from tests.games.sky_towers.sky_towers_support import load, position
from tests.vector.oracle_support import assert_matches_aec, assert_states_round_trip

ENV = "sky_towers_v0"


def cards(**copies) -> list[dict]:
    """Deck entries ``v1=8, v2=10, ...``: one sail on 1..7, one flag on 5 and 7 (the
    default deck's sails and flags)."""
    return [{"value": int(name[1:]), "copies": count, "sails": int(int(name[1:]) <= 7),
             "flags": int(name in ("v5", "v7"))} for name, count in copies.items()]


#: low cards only: Sky, Triple, Romance and Lucky towers are common
LOW_DECK = {"cards": cards(v1=12, v2=24, v3=24, v4=10, v7=10)}
#: every value, many 4s and 7s, 8s and 9s; other sails and a bonus table without Big Ben and Perfect
MIXED_DECK = {"cards": cards(v2=24, v3=24, v4=16, v5=10, v7=10, v8=6, v9=6, v10=10),
              "bonuses": {"sky": 1, "triple": 6, "romance": 2, "lucky": 4, "real_estate_king": 3}}
CASES = {
    "default": {},
    "3 players, random first": {"players": 3, "first": "random"},
    "4 players, random first": {"players": 4, "first": "random"},
    "low-card deck, 3 row slots, 3 players": {"deck": LOW_DECK, "max_towers": 3, "players": 3},
    "mixed deck and bonuses, 2 row slots, 4 players": {"deck": MIXED_DECK, "max_towers": 2, "players": 4},
    "one row slot": {"max_towers": 1, "first": "random"},
    "small max_turns": {"max_turns": 9, "players": 3},
}


@pytest.mark.parametrize("options", CASES.values(), ids=CASES.keys())
def test_the_compiled_engine_matches_the_aec_env(options):
    counts = assert_matches_aec(ENV, options, num_envs=5, steps=500, seed=11, expect_compiled=True)
    assert counts["games_ended"] >= 8


@pytest.mark.parametrize("options", [CASES["default"], CASES["4 players, random first"]])
def test_partial_steps_match_the_aec_env(options):
    assert_matches_aec(ENV, options, num_envs=5, steps=500, seed=12, expect_compiled=True, partial=True)


def test_max_turns_cuts_end_games_as_truncations():
    venv = vector.make(ENV, 4, seed=3, max_turns=2)
    batch, rng, cuts = venv.reset(), np.random.default_rng(0), 0
    for _ in range(60):
        batch = venv.step(vector.random_actions(batch.action_mask, rng))
        assert not batch.terminated.any() and not batch.rewards.any()
        cuts += int(batch.truncated.sum())
    assert cuts >= 8
    assert_matches_aec(ENV, {"max_turns": 2}, num_envs=4, steps=60, seed=3, expect_compiled=True)


@lru_cache(maxsize=None)
def mid_game_positions(options_key: str, count: int, seed: int) -> tuple[str, ...]:
    """Texts of positions from random games, about half of them in an effect's phase (rush,
    exchange, give, peek, ask, discard), the others in the main phase: the full state,
    hands, deck order and knowledge included."""
    game = sky_envs.make_game(ENV, **CASES[options_key])
    rng = np.random.default_rng(seed)
    texts: list[str] = []
    while len(texts) < count:
        state = game.new_initial_state(np.random.default_rng(int(rng.integers(1 << 30))))
        depth = int(rng.integers(5, 150))
        want_effect = len(texts) % 2 == 1
        for _ in range(1000):
            if state.current_player < 0:
                break
            if state.turns * 2 >= depth and (state.phase != MAIN) == want_effect:
                texts.append(state.to_text())
                break
            state.apply(int(rng.choice(state.legal_actions())))
    return tuple(texts)


@pytest.mark.parametrize("key", ["default", "4 players, random first", "low-card deck, 3 row slots, 3 players"])
def test_slots_started_from_mid_game_positions(key):
    positions = mid_game_positions(key, 6, seed=30)
    assert {text.split("phase: ")[1].split()[0] for text in positions} - {"main"}, "no position in an effect"
    assert_matches_aec(ENV, CASES[key], num_envs=len(positions), steps=300, seed=5, positions=list(positions),
                       expect_compiled=True)


@pytest.mark.parametrize("key", ["default", "4 players, random first", "mixed deck and bonuses, 2 row slots, 4 players"])
def test_game_states_round_trip_and_agree_with_the_reference_engine(key):
    assert_states_round_trip(ENV, CASES[key], num_envs=4, steps=240, seed=21, check_every=6, same_generator=True)


def test_without_final_observations_the_games_are_the_same():
    kept = vector.make(ENV, 3, seed=8, max_turns=6)
    dropped = vector.make(ENV, 3, seed=8, max_turns=6, keep_final_observation=False)
    batch, other, rng = kept.reset(), dropped.reset(), np.random.default_rng(1)
    for _ in range(50):
        actions = vector.random_actions(batch.action_mask, rng)
        batch, other = kept.step(actions), dropped.step(actions)
        assert np.array_equal(batch.observation, other.observation)
        assert np.array_equal(batch.truncated, other.truncated)


def test_positions_of_another_configuration_or_finished_games_are_refused():
    batch = SkyTowersGame().batched_games(2)
    with pytest.raises(ValueError, match="num_players=3"):
        batch.set_state(0, SkyTowersGame(players=3).new_initial_state(np.random.default_rng(0)))
    with pytest.raises(ValueError, match="deck="):
        batch.set_state(0, SkyTowersGame(deck=LOW_DECK).new_initial_state(np.random.default_rng(0)))
    state = SkyTowersGame().new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while state.phase != OVER:
        state.apply(int(rng.choice(state.legal_actions())))
    with pytest.raises(ValueError, match="over"):
        batch.set_state(0, state)
    state = SkyTowersGame().new_initial_state(np.random.Generator(np.random.MT19937(0)))
    with pytest.raises(ValueError, match="PCG64"):
        batch.set_state(0, state)


#: hand-made positions (those of ``test_rules.py``) where a bonus, an effect or the end is
#: one or two decisions away, and the options of their games
CRAFTED = {
    "sky": (position(hands={0: "1 5"}, rows={0: "3.3.3.3.3.2.2.1"}), {}),
    "triple": (position(hands={0: "4 5 9"}, rows={0: "3.3.3.4.4 2.2.2.2.2.2"}), {}),
    "romance": (position(hands={0: "5 1 2"}, rows={0: "5.5.5"}), {}),
    "lucky taken over": (position(hands={0: "7 3"}, rows={0: "7.7"}, piles={1: "7.7.7"}, bonuses={"lucky": 1}), {}),
    "king and perfect": (position(hands={0: "2 3"}, rows={0: "10.9 10.8"}), {}),
    "big ben": (position(hands={0: "2 3"}, rows={0: "10.9"}, piles={0: "10.6.5 10.7.4"}), {}),
    "big ben stays": (position(hands={0: "2 3"}, rows={0: "10.9"}, piles={0: "10.6.5 10.7.4", 1: "10.5.6 10.4.7 10.3.8"},
                               bonuses={"big_ben": 1}), {}),
    "chaos completion": (position(players=3, hands={0: "9 8"}, rows={1: "10.2", 2: "10.3"},
                                  piles={1: "10.9.2 10.8.3"}), {}),
    "bonuses left out": (position(hands={0: "7 3"}, rows={0: "7.7"}).replace(" lucky=-", ""), {"bonuses": {
        "big_ben": 5, "sky": 3, "triple": 4, "romance": 3, "real_estate_king": 3, "perfect": 1}}),
    "exchange": (position(players=3, hands={0: "2 5", 1: "7 9 9", 2: "3 4"}), {}),
    "peek": (position(hands={0: "3 8"}, deck="9 1 2"), {}),
    "rush": (position(hands={0: "4 4 4 4"}, rows={0: "5 10"}), {}),
    "return": (position(players=3, hands={0: "5 1 1 2 2 3 3", 1: "1 2 3 4 6 6 7", 2: "7 7 8 9 10 10"}), {}),
    "ask": (position(hands={0: "6 6", 1: "3 3 9"}), {}),
    "the last card": (position(players=3, turn_of=1, hands={1: "4 5", 2: "8", 0: "1"}, deck="3", rest="discards"), {}),
    "a 7 opens the last card": (position(hands={0: "7 1"}, deck="3", rest="discards"), {}),
    "the final turn": (position(turn_of=0, hands={0: "1 2"}, piles={1: "10.6.3.2", 0: "10.5.6"}, rest="discards",
                                end="0", final="yes", actions=3), {}),
}


def _play_beside(engine, state, actions, rng, plies):
    """Play ``actions``, then random ones up to ``plies`` decisions in all, in ``state`` and
    in slot 0 of ``engine`` (loaded with ``state``); compare the slot's state (to_text), mask
    and observation after every decision, and the returns and final observation at the end."""
    engine.set_state(0, state)
    seeds, active = np.zeros(1, dtype=np.int64), np.ones(1, dtype=bool)
    for ply in range(plies):
        action = actions[ply] if ply < len(actions) else int(rng.choice(state.legal_actions()))
        mover = state.current_player
        state.apply(action)
        engine.step(np.array([action]), seeds, active)
        if state.current_player < 0:
            assert engine.terminated[0] == state.is_terminal() and engine.truncated[0] == state.is_truncated()
            assert np.array_equal(engine.rewards[0], state.returns().astype(np.float32))
            assert np.array_equal(engine.final_observation[0], state.observation(mover))
            return
        assert engine.get_state(0).to_text() == state.to_text(), f"after {state.action_to_string(action)}"
        assert np.array_equal(engine.action_mask[0], state.legal_mask().astype(bool))
        assert np.array_equal(engine.observation[0], state.observation(state.current_player))


@pytest.mark.parametrize("key", CRAFTED)
def test_every_two_first_decisions_of_crafted_positions_then_random_play(key):
    text, options = CRAFTED[key]
    rng = np.random.default_rng(0)
    root = load(text, **options)
    engine = root.game.batched_games(1)
    for first in root.legal_actions().tolist():
        child = root.clone()
        child.apply(first)
        seconds = child.legal_actions().tolist() if child.current_player >= 0 else [None]
        for second in seconds:
            actions = [first] if second is None else [first, second]
            _play_beside(engine, load(text, seed=first, **options), actions, rng, plies=5)


@pytest.mark.slow
@pytest.mark.parametrize("options", CASES.values(), ids=CASES.keys())
def test_long_oracle_campaign(options):
    for seed in range(3):
        counts = assert_matches_aec(ENV, options, num_envs=12, steps=2500, seed=100 + seed, expect_compiled=True,
                                    partial=seed == 1)
        assert counts["games_ended"] >= 50


@pytest.mark.slow
@pytest.mark.parametrize("key", list(CASES))
def test_long_campaign_from_mid_game_positions(key):
    positions = mid_game_positions(key, 12, seed=77)
    assert_matches_aec(ENV, CASES[key], num_envs=len(positions), steps=1500, seed=9, positions=list(positions),
                       expect_compiled=True, partial=True)
