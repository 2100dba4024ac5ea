"""Skybridge through the env: PettingZoo API tests, options, bad input, observations, renders."""

import copy
import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import sky_envs
from sky_envs import skybridge_v0
from sky_envs.core.env import SkyEnv
from tests.games.skybridge.skybridge_support import action, game, load, position

CONFIGS = [dict(players=p, variant=v) for p in (2, 3, 4) for v in ("seed", "classic")]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: f"{o['players']}p-{o['variant']}")
def test_pettingzoo_api_seed_and_render(options):
    api_test(sky_envs.make("skybridge_v0", **options), num_cycles=60)
    seed_test(lambda: sky_envs.make("skybridge_v0", **options), num_cycles=60)
    render_test(lambda render_mode=None: sky_envs.make("skybridge_v0", render_mode=render_mode, **options))


@pytest.mark.parametrize("options", [
    dict(rows=2, cols=2, reward="score"),
    dict(rows=2, cols=4, players=3, tall=2, short=5, bridges=2, roofs=1, neutral_tall=0, variant="classic"),
    dict(rows=4, cols=3, players=4, tall=0, short=6, neutral_tall=0),
    dict(players=3, tall=6, short=3, neutral_tall=2, neutral_short=1, reward="score"),
])
def test_other_options_pass_the_api_test(options):
    api_test(sky_envs.make("skybridge_v0", **options), num_cycles=60)
    seed_test(lambda: sky_envs.make("skybridge_v0", **options), num_cycles=30)


def test_every_way_to_create_the_env():
    for env in (sky_envs.make("skybridge_v0"), pettingzoo.make("aec", "sky_envs/skybridge-v0"),
                skybridge_v0.env(), skybridge_v0.raw_env()):
        assert isinstance(env, SkyEnv)
        env.reset(seed=0)
        assert env.action_space("player_0").n == 78
        assert env.observation_space("player_0")["observation"].shape == (3, 3, 34)
    assert skybridge_v0.raw_env().strict and not skybridge_v0.env().strict
    env = sky_envs.make("skybridge_v0", players=4, rows=2, cols=5)
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert env.game.options()["cols"] == 5


@pytest.mark.parametrize("options, message", [
    (dict(variant="published"), "variant='published' is not valid"),
    (dict(players=1), "players=1 is not valid"),
    (dict(players=5), "players=5 is not valid"),
    (dict(players="2"), "players='2' is not valid"),
    (dict(rows=1), "rows must be an integer >= 2"),
    (dict(cols=0), "cols must be an integer >= 2"),
    (dict(rows=2.5), "rows must be an integer >= 2"),
    (dict(tall=-1), "tall must be a non-negative integer"),
    (dict(roofs=-2), "roofs must be a non-negative integer"),
    (dict(bridges=True), "bridges must be a non-negative integer"),
    (dict(neutral_short=-1), "neutral_short must be a non-negative integer"),
    (dict(tall=0, short=0), "tall \\+ short must be >= 1"),
    (dict(players=3, neutral_tall=2), "neutral_tall=2 is too many"),
    (dict(players=3, short=2), "neutral_short=1 is too many"),
    (dict(reward="points"), "reward='points' is not valid"),
    (dict(max_turns=0), "max_turns must be an integer >= 1"),
])
def test_bad_options_raise_at_construction(options, message):
    with pytest.raises(ValueError, match=message):
        sky_envs.make("skybridge_v0", **options)


GOOD_2X2 = """0 0: 1S 0Be
0 1: 2S 0Bw
1 0: 1T
1 1:
supply 0 0: T=1 S=0 B=0 R=0
supply 0 1: T=0 S=0 B=0 R=0
supply 1 0: T=0 S=1 B=0 R=0
supply 1 1: T=0 S=0 B=0 R=0
to_move: 0"""


@pytest.mark.parametrize("change, message", [
    (("0 1: 2S 0Bw", "0 1: 2S"), "does not pair up"),
    (("0 1: 2S 0Bw", "0 1: 2S 1Bw"), "does not pair up"),
    (("0 1: 2S 0Bw", "0 1: 2T 0Bw"), "heights do not match"),
    (("1 0: 1T", "1 0: 1T 0Bw"), "points off the board"),
    (("1 1:", "1 1: 0Bn"), "bare board"),
    (("0 0: 1S 0Be", "0 0: 1S 2R 0Be"), "lies on a roof"),
    (("1 0: 1T", "1 0: 1R 1T"), "lies on a roof"),
    (("0 0: 1S 0Be", "0 0: 1S 3Bs 0Be"), "directly on a bridge"),
    (("1 1:", "1 1: 0R"), "roof '0R' on \\(1,1\\) lies on the bare board"),  # roofs need height >= 1
    (("1 0: 1T", "1 0: 1X"), "bad piece '1X'"),
    (("1 0: 1T", "1 0: 5T"), "colours are 0..3"),
    (("1 0: 1T", "1 0: 1T 1T 1T 1T 1T"), "colour 1 has 5 tall blocks"),
    (("1 1:", "1 1: 1T"), None),  # fine: still within colour 1's four tall blocks
    (("1 1:\n", ""), "no line for foundation\\(s\\) \\(1,1\\)"),
    (("1 1:", "1 1:\n1 1:"), "appears twice"),
    (("1 1:", "2 0:"), "row must be in 0..1"),
    (("supply 1 1: T=0 S=0 B=0 R=0\n", ""), "missing line 'supply 1 1"),
    (("supply 0 0: T=1 S=0 B=0 R=0", "supply 0 0: T=5 S=0 B=0 R=0"), "starts with only 4"),
    (("supply 0 0: T=1 S=0 B=0 R=0", "supply 0 0: T=1 S=0 B=0"), "needs T=, S=, B= and R="),
    (("supply 0 0: T=1 S=0 B=0 R=0", "supply 0 0: T=x S=0 B=0 R=0"), "supply T must be an integer"),
    (("supply 0 0: T=1 S=0 B=0 R=0", "supply 0 0: T=1 S=0 B=0 R=0 Q=1"), "bad supply entry 'Q=1'"),
    (("supply 0 0", "supply 0 2"), "supply slot must be in 0..1"),
    (("to_move: 0", "to_move: 2"), "to_move must be in 0..1"),
    (("to_move: 0", ""), "missing line 'to_move"),
    (("to_move: 0", "to_move: 0\n1 1:"), "'to_move' must be the last line"),
    (("1 1:", "1 1:\nhello"), "is not a position line"),
    (("1 1:", "1 1:\nturn: 3"), "unknown line 'turn: 3'"),
])
def test_bad_position_texts_name_the_problem(change, message):
    g = game(rows=2, cols=2)
    old, new = change
    assert old in GOOD_2X2
    text = GOOD_2X2.replace(old, new, 1)
    if message is None:
        assert g.state_from_text(text).to_text() == text
        return
    with pytest.raises(ValueError, match=message):
        g.state_from_text(text)


def test_position_must_fit_the_env_and_the_seat_count():
    with pytest.raises(ValueError, match="no line for foundation"):
        game(rows=3, cols=3).state_from_text(GOOD_2X2)
    with pytest.raises(ValueError, match="supply slot must be in 0..0"):
        game(rows=2, cols=2, players=4).state_from_text(GOOD_2X2)
    three = game(rows=2, cols=2, players=3)
    with pytest.raises(ValueError, match="colour 3 has 1 bridges"):
        three.state_from_text(position(three, {"0 0": "1S 3Be", "0 1": "2S 3Bw"}))
    with pytest.raises(ValueError, match="slot starts with only 1"):
        three.state_from_text(position(three, {}, {(0, 1): "T=2"}))
    with pytest.raises(ValueError, match="must be a str"):
        three.state_from_text(None)


def test_reset_with_a_position_and_reading_it_back():
    env = sky_envs.make("skybridge_v0", rows=2, cols=2)
    env.reset(options={"position": GOOD_2X2})
    assert env.unwrapped.game_state.to_text() == GOOD_2X2
    assert env.agent_selection == "player_0"
    obs = env.observe("player_0")
    assert obs["action_mask"].sum() == 1  # the tall block must go on the empty (1,1)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agent_selection == "player_1"
    assert env.unwrapped.game_state.info()["scores"] == [2 * (3 + 3) + 3, 3]


def test_illegal_actions_raw_env_raises_with_the_rule_env_loses():
    raw = skybridge_v0.raw_env(rows=2, cols=2)
    raw.reset(options={"position": GOOD_2X2})
    with pytest.raises(ValueError, match=r"action 0 \(colour 0 tall block on a1\) is illegal for player_0: "
                                         r"the top of a1 is already colour 0"):
        raw.step(0)
    with pytest.raises(ValueError, match="no short blocks of colour 0 left"):
        raw.step(4 + 3)
    with pytest.raises(ValueError, match="lowest level"):
        raw.step(2)
    with pytest.raises(ValueError, match="out of range"):
        raw.step(32)
    env = skybridge_v0.env(rows=2, cols=2)
    env.reset(options={"position": GOOD_2X2})
    with pytest.warns(UserWarning, match="illegal for player_0"):
        env.step(2)
    assert env.rewards == {"player_0": -1, "player_1": 0}


def test_game_end_rewards_and_infos_through_the_env():
    env = sky_envs.make("skybridge_v0", rows=2, cols=2)
    text = position(env.game, {"0 0": "1S 2R", "0 1": "1T 3R", "1 0": "2T 1R", "1 1": "3T"}, {(0, 0): "R=1"})
    env.reset(options={"position": text})
    env.step(2 * 4 + 3)  # colour 0 roof on (1,1): every tower is closed
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.infos["player_1"]["winners"].tolist() == [0, 1] and env.infos["player_0"]["scores"].tolist() == [5, 6]
    env = sky_envs.make("skybridge_v0", rows=2, cols=2, max_turns=2)
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(r == 0 for r in env.rewards.values())
    assert env.unwrapped.game_state.to_text().endswith("to_move: -")


def test_observation_channels_are_seat_relative():
    g = game(rows=2, cols=2)
    s = load(g, {"0 0": "1S 0Be", "0 1": "2S 0Bw", "1 0": "1T 2R"},
             {(0, 0): "T=2 S=1", (0, 1): "R=1", (1, 0): "T=3"})
    o0, o1 = s.observation(0), s.observation(1)
    assert o0.shape == (2, 2, 34) and o0.dtype == np.float32
    empty = np.zeros(34, dtype=np.float32)
    # (0,0) for seat 0 (relative colours 0, 2, 1, 3)
    want = empty.copy()
    want[[0, 3, 9, 11, 15, 22, 24]] = [3, 1, 1, 1, 1, 1, 2]
    want[26:34] = [2, 1, 0, 0, 0, 0, 0, 1]
    np.testing.assert_array_equal(o0[0, 0], want)
    # the same tower for seat 1 (relative colours 1, 3, 0, 2): colour 0 is relative 2
    want = empty.copy()
    want[[0, 5, 9, 11, 19, 22, 24]] = [3, 1, 1, 1, 1, 2, 1]
    want[26:30] = [3, 0, 0, 0]
    np.testing.assert_array_equal(o1[0, 0], want)
    # (0,1): bridge end pointing west, colour 2 below it is seat 0's second colour
    assert o0[0, 1, 13] == 1 and o0[0, 1, 17] == 1 and o0[0, 1, 23] == 2 and o0[0, 1, 22] == 1
    # (1,0): roofed by colour 2 (seat 0's relative 1), colour 1 storeys
    want = empty.copy()
    want[[0, 1, 4, 24]] = [3, 1, 1, 3]
    want[26:34] = [2, 1, 0, 0, 0, 0, 0, 1]
    np.testing.assert_array_equal(o0[1, 0], want)
    # (1,1): empty, at the lowest level
    want = empty.copy()
    want[2] = 1
    want[26:34] = [2, 1, 0, 0, 0, 0, 0, 1]
    np.testing.assert_array_equal(o0[1, 1], want)
    assert o0.max() <= g.observation_high and o0.min() >= g.observation_low


def test_observation_of_three_and_four_seats_orders_colours_by_turn():
    g3 = game(rows=2, cols=2, players=3)
    s = load(g3, {"0 0": "0T", "0 1": "1T", "1 0": "2T", "1 1": "3T"}, {(1, 1): "S=1"}, to_move="1")
    for seat in range(3):
        o = s.observation(seat)
        tops = [int(np.argmax(o[r, c, 3:7])) for r, c in ((0, 0), (0, 1), (1, 0), (1, 1))]
        assert tops == [(0 - seat) % 3, (1 - seat) % 3, (2 - seat) % 3, 3]
    np.testing.assert_array_equal(s.observation(1)[0, 0, 26:34], [0, 0, 0, 0, 0, 1, 0, 0])
    g4 = game(rows=2, cols=2, players=4)
    s = load(g4, {"0 0": "0T", "0 1": "1T", "1 0": "2T", "1 1": "3T"})
    for seat in range(4):
        o = s.observation(seat)
        tops = [int(np.argmax(o[r, c, 3:7])) for r, c in ((0, 0), (0, 1), (1, 0), (1, 1))]
        assert tops == [(k - seat) % 4 for k in range(4)]
        assert not o[..., 30:34].any()


def test_renders():
    env = sky_envs.make("skybridge_v0", render_mode="rgb_array")
    env.reset(seed=5)
    first = env.render()
    for _ in range(12):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape == first.shape
    assert not np.array_equal(image, first)
    # every colour of the palette that is on the board shows up in the picture
    from sky_envs.core.render import PALETTE

    colours = {piece >> 3 for stack in env.unwrapped.game_state.stacks for piece in stack}
    for colour in colours:
        assert (np.abs(image.astype(int) - np.array(PALETTE[colour])).sum(-1) < 60).any()
    ansi = sky_envs.make("skybridge_v0", render_mode="ansi", rows=2, cols=2)
    ansi.reset(options={"position": GOOD_2X2})
    text = ansi.render()
    assert "1   3:0Be  3:0Bw" in text and text.endswith(GOOD_2X2) and "scores [12, 3]" in text


def test_illegal_reason_names_every_rule():
    g = game(rows=2, cols=2, players=4)
    s = g.new_initial_state(np.random.default_rng(0))
    assert "only colour slot 0" in s.illegal_reason(g.slot_size)
    three = game(players=3).new_initial_state(np.random.default_rng(0))
    assert "player_0 gets no roofs of colour 3 in this game" in three.illegal_reason(39 + 18)
    assert "empty" in s.illegal_reason(2 * 4)
    assert "height >= 1" in s.illegal_reason(3 * 4)
    s = load(game(rows=2, cols=2, variant="classic"), {"0 0": "1T 0S", "0 1": "1T", "1 0": "0S", "1 1": "1S"},
             {(0, 0): "T=1"})
    assert s.current_player == 0 and s.legal_actions().tolist() == [action(s, "0T11")]
    assert "would touch a colour 0 piece on the adjacent a1" in s.illegal_reason(1)
    assert "already colour 0" in s.illegal_reason(2)
    assert "no short blocks of colour 0 left" in s.illegal_reason(4 + 3)
    assert "game is over" in load(g, {}, to_move="-").illegal_reason(0)


def test_deepcopy_and_pickle_mid_game_continue_identically():
    env = sky_envs.make("skybridge_v0", players=3, variant="classic")
    env.reset(seed=11)
    for _ in range(7):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for e in (env, *twins):
        for _ in range(9):
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert len({e.unwrapped.game_state.to_text() for e in (env, *twins)}) == 1
    np.testing.assert_array_equal(env.observe("player_1")["observation"], twins[1].observe("player_1")["observation"])
