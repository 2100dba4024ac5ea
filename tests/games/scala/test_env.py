"""Scala through PettingZoo's test utilities and the env, bad input, and random-play fuzzing."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

import sky_envs
from sky_envs import scala_v0
from sky_envs.games.scala import ScalaGame
from sky_envs.games.scala.board import CELL_BY_NAME, TARGET_GOAL
from sky_envs.games.scala.rules import components
from tests.games.scala.test_rules import START_TEXT, act, pos

RULES = ["mover_loses", "illegal"]
GOALS = (1 << TARGET_GOAL[0]) | (1 << TARGET_GOAL[1])


@pytest.mark.parametrize("rule", RULES)
def test_pettingzoo_api_seed_and_render(rule):
    api_test(scala_v0.env(split_rule=rule), num_cycles=200)
    seed_test(lambda: scala_v0.env(split_rule=rule), num_cycles=100)
    render_test(lambda render_mode=None: scala_v0.env(render_mode=render_mode, split_rule=rule))


def test_registry_and_every_way_to_make_it():
    assert "scala_v0" in sky_envs.env_ids()
    for env in (pettingzoo.make("aec", "sky_envs/scala-v0", split_rule="illegal"),
                sky_envs.make("scala_v0", split_rule="illegal"), scala_v0.env(split_rule="illegal")):
        env.reset(seed=0)
        assert env.possible_agents == ["player_0", "player_1"]
        assert env.agent_selection == "player_0"
        assert env.action_space("player_0").n == 7744
        assert env.observation_space("player_1")["observation"].shape == (14, 11, 5)
        assert env.unwrapped.game.split_rule == "illegal"
        assert env.unwrapped.game_state.to_text() == START_TEXT


def test_reset_with_a_position_and_a_winning_move_through_the_env():
    env = scala_v0.env()
    env.reset(options={"position": pos(O="e13", X="f13")})
    obs, reward, term, trunc, info = env.last()
    assert obs["action_mask"][act("e13", "f14")] == 1 and obs["action_mask"].sum() == 5
    env.step(act("e13", "f14"))
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos["player_1"]["winners"].tolist() == [1, 0] and env.unwrapped.game_state.info()["end"] == "goal"


def test_a_loaded_position_without_a_move_is_over_at_reset():
    env = scala_v0.env()
    env.reset(options={"position": pos(O="e13 f13 g13 d12 f12 h12", X="f14", to_move="X")})
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.unwrapped.game_state.info()["end"] == "no_move" and env.infos["player_0"]["turn"] == 0


def test_max_turns_truncates_through_the_env():
    env = scala_v0.env(max_turns=3)
    env.reset(seed=0)
    for a in (act("e5", "e4"), act("e10", "e11"), act("f5", "f4")):
        env.step(a)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert env.unwrapped.game_state.info()["end"] == "max_turns" and env.infos["player_0"]["turn"] == 3
    assert not env.infos["player_0"]["winners"].any()


def test_illegal_action_loses_with_env_and_raises_with_raw_env():
    env = scala_v0.env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match=r"\(e5-f6\) is illegal for player_0: f6 is occupied"):
        env.step(act("e5", "f6"))
    assert env.rewards["player_0"] == -1 and env.rewards["player_1"] == 0
    raw = scala_v0.raw_env()
    raw.reset(seed=0)
    with pytest.raises(ValueError, match=rf"action {act('e5', 'f6')} \(e5-f6\) is illegal for player_0: f6 is occupied"):
        raw.step(act("e5", "f6"))
    strict = scala_v0.raw_env(split_rule="illegal")
    strict.reset(options={"position": pos(O="a9 c9 e9", X="b9 d9 f9")})
    with pytest.raises(ValueError, match=r"\(c9-b8\) is illegal for player_0: with split_rule='illegal' .*rule 4"):
        strict.step(act("c9", "b8"))


def test_rgb_render_is_a_picture_of_the_board():
    env = scala_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > 14 * 40 and image.shape[1] > 11 * 40
    colours = {tuple(c) for c in np.unique(image.reshape(-1, 3), axis=0)}
    assert (52, 101, 164) in colours and (204, 0, 0) in colours  # blue and red stones
    env.step(act("e5", "e4"))
    assert not np.array_equal(env.render(), image)
    ansi = scala_v0.env(render_mode="ansi")
    ansi.reset(seed=0)
    text = ansi.render()
    assert "a b c d e f g h i j k" in text and text.splitlines()[0].startswith("14")
    assert "player_0 (O) to move" in text


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("options, message", [
    ({"split_rule": "lose"}, r"split_rule='lose' is not valid: expected one of \['mover_loses', 'illegal'\]"),
    ({"split_rule": None}, "split_rule=None is not valid"),
    ({"max_turns": 0}, "max_turns must be an integer >= 1"),
    ({"max_turns": "300"}, "max_turns must be an integer"),
    ({"max_turns": True}, "max_turns must be an integer"),
    ({"max_turns": 2.5}, "max_turns must be an integer"),
    ({"board": "standard"}, r"unknown option 'board': scala_v0 takes split_rule, max_turns"),
])
def test_bad_options_raise_at_construction(options, message):
    with pytest.raises(ValueError, match=message):
        scala_v0.env(**options)


def _lines(text=None):
    return (text or START_TEXT).splitlines()


def _with(lineno, line):
    lines = _lines()
    lines[lineno - 1] = line
    return "\n".join(lines)


@pytest.mark.parametrize("text, message", [
    (_with(5, "#...XXX..#"), r"line 5: row 10 '#...XXX..#' has 10 characters, expected 11"),
    (_with(5, "#...XXZ...#"), r"line 5: row 10 column g: unknown character 'Z'"),
    (_with(1, "O####.#####"), r"line 1: row 14 column a: a14 is no cell"),
    (_with(7, "..XXO##XX.."), r"line 7: row 8 column e: e8 is the hole"),
    (_with(14, "#####.####."), r"line 14: row 1 column k: k1 is no cell"),
    (_with(6, "..XXXXX#X.."), r"line 6: row 9 column h: h9 is a board cell; write '.', 'O' or 'X'"),
    ("\n".join(_lines()[:13] + ["to_move: O"]), r"line 14: expected 14 board rows \(row 14 down to row 1\), got 13"),
    ("\n".join(_lines()[:14] + ["#####.#####", "to_move: O"]), r"line 15: board row 15"),
    ("\n".join(_lines()[:14]), r"line 15: missing 'to_move: O' or 'to_move: X'"),
    (START_TEXT.replace("to_move: O", "to_move: B"), r"line 15: to_move must be 'O' \(Blue, player_0\) or 'X'"),
    (START_TEXT.replace("to_move: O", "turn: 3\nto_move: O"), r"line 15: unknown field 'turn'"),
    (START_TEXT.replace("..OOOOOOO..", "OOOOOOOOOOO"), r"18 Blue stones \('O'\): each side has at most 14"),
    (pos(O="f14", X="f1"), "both sides stand on the goal they attack"),
    (START_TEXT.replace("to_move: O", "winner: Y\nto_move: O"), r"line 15: winner must be 'O' or 'X'"),
    (START_TEXT.replace("to_move: O", "winner: X\nto_move: O"), r"line 15: .*expected 'to_move: X'"),
    ("", "line 1: expected 14 board rows"),
])
def test_bad_position_text_names_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        ScalaGame().state_from_text(text)
    env = scala_v0.env()
    with pytest.raises(ValueError, match="bad position text"):
        env.reset(options={"position": text})


def test_a_text_is_read_leniently_around_the_notation():
    # blank lines and surrounding spaces are ignored; the rows themselves are exact
    text = "\n  " + START_TEXT.replace("\n", "\n  ") + "\n\n"
    assert ScalaGame().state_from_text(text).to_text() == START_TEXT
    with pytest.raises(ValueError, match="must be a str"):
        ScalaGame().state_from_text(None)


# ------------------------------------------------------------------ properties
def random_game(rule, seed, max_turns=300):
    """Seeded random play on the engine: every state, from the start to the end."""
    game = ScalaGame(split_rule=rule, max_turns=max_turns)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    yield state
    while state.current_player >= 0:
        state.apply(int(rng.choice(state.legal_actions())))
        yield state


def check_invariants(states):
    """Stones only ever decrease, never overlap, the board is one group while the game goes on,
    and a goal holds a stone only once the game is over (won there)."""
    before = None
    for state in states:
        blue, red = state.stones
        assert blue & red == 0
        counts = (blue.bit_count(), red.bit_count())
        if before is not None:
            assert counts[0] <= before[0] and counts[1] <= before[1]
        before = counts
        mask = state.legal_mask()
        if state.current_player >= 0:
            assert mask.any() and len(components(blue | red)) == 1
            assert not (blue | red) & GOALS
        else:
            assert not mask.any() and state.is_over()
            if (blue | red) & GOALS:
                assert state.end == "goal"
                assert state.stones[state.winner] >> TARGET_GOAL[state.winner] & 1
        assert state.info()["stones"] == list(counts)
    return before


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_fuzz_random_play_invariants(rule, seed):
    check_invariants(random_game(rule, seed))


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_text_round_trips_exactly_at_every_step(rule, seed):
    for state in random_game(rule, seed):
        text = state.to_text()
        again = state.game.state_from_text(text)
        assert again.to_text() == text
        if state.is_terminal():
            assert again.winner == state.winner and again.end == state.end
        elif state.current_player >= 0:
            assert again.current_player == state.current_player
            np.testing.assert_array_equal(again.legal_mask(), state.legal_mask())


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_clones_are_independent(rule, seed):
    rng = np.random.default_rng(seed)
    for state in random_game(rule, seed):
        if state.current_player < 0:
            break
        text, mask = state.to_text(), state.legal_mask().copy()
        twin = state.clone()
        twin.apply(int(rng.choice(twin.legal_actions())))
        assert state.to_text() == text
        np.testing.assert_array_equal(state.legal_mask(), mask)


@pytest.mark.parametrize("rule", RULES)
def test_same_seed_same_game_through_the_env(rule):
    def play(seed):
        env = scala_v0.env(split_rule=rule)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        texts = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            texts.append(env.unwrapped.game_state.to_text())
        return texts, env.rewards
    assert play(5) == play(5)


def test_observation_follows_the_stones_during_play():
    for state in random_game("mover_loses", 11):
        for seat in (0, 1):
            obs = state.observation(seat)
            own, opp = state.stones[seat], state.stones[1 - seat]
            assert obs[..., 1].sum() == own.bit_count() and obs[..., 2].sum() == opp.bit_count()
            assert obs.min() >= 0 and obs.max() <= 1
        # e5 is row 14 - 5 = 9, column 4 of the grid
        assert state.observation(0)[9, 4, 1] == (state.stones[0] >> CELL_BY_NAME["e5"] & 1)
        assert state.observation(1)[9, 4, 2] == (state.stones[0] >> CELL_BY_NAME["e5"] & 1)


def test_deepcopy_and_pickle_mid_game_continue_identically():
    env = scala_v0.env()
    env.reset(seed=1)
    for a in (act("e5", "e4"), act("e10", "e11")):
        env.step(a)
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for e in [env, *twins]:
        e.step(act("f5", "f4"))
    assert len({e.unwrapped.game_state.to_text() for e in [env, *twins]}) == 1


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_long_random_play_fuzz(rule):
    ends = {}
    for seed in range(400):
        states = list(random_game(rule, seed))
        check_invariants(states)
        last = states[-1]
        ends[last.end] = ends.get(last.end, 0) + 1
        if seed % 20 == 0:
            for state in states:
                assert state.game.state_from_text(state.to_text()).to_text() == state.to_text()
    assert sum(ends.values()) == 400
