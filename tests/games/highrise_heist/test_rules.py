"""Highrise Heist (2 seats): every rule sentence of rules/highrise_heist.md on hand-made positions.

Positions are written in the rules file's notation; each test pins the exact legal set, the
resulting text, the rewards or the winner.
"""

import numpy as np
import pytest

import sky_envs
from sky_envs.games.highrise_heist import HighriseHeistGame
from tests.games.highrise_heist.highrise_heist_support import after, legal

GAME = HighriseHeistGame()
L = GAME.layout
NO, SWAP = 100, 266


def T(a, b):
    return a * 10 + b


def P(s, k):
    return 101 + 3 * s + k - 1


def P2(s, a, t, b):
    return L.placement_action({s: a, t: b})


def text(stands=None, phase="transfer", turn=2, closed=0, to_move=None):
    lines = ["-"] * 10
    for s, blocks in (stands or {}).items():
        lines[s] = blocks
    to_move = turn % 2 if to_move is None else to_move
    return "\n".join(lines + [f"to_move: {to_move}", f"phase: {phase}", f"turn: {turn}", f"closed_this_turn: {closed}"])


def load(stands=None, **fields):
    return GAME.state_from_text(text(stands, **fields))


def stand_lines(state):
    return state.to_text().splitlines()[:10]


ALL_PLACEMENTS = set(range(101, 266))
FULL, TEN = "b" * 11, "r" * 10


# ---------------------------------------------------------------- layout and setup

def test_action_layout_matches_the_rules_file():
    assert GAME.num_actions == 267 and L.no_transfer == 100 and L.swap == 266
    assert L.single == 101 and L.pair == 131
    assert L.pairs[0] == (0, 1) and L.pairs[44] == (8, 9) and len(L.pairs) == 45
    assert L.placements[P(9, 3) - 101] == ((9, 3),)
    assert P2(0, 1, 1, 1) == 131 and P2(0, 1, 1, 2) == 132 and P2(0, 2, 1, 1) == 133
    assert P2(8, 2, 9, 1) == 265
    assert L.placement_action([(3, 1), (7, 2)]) == 131 + 3 * L.pairs.index((3, 7)) + 1
    assert "golden" in GAME.new_initial_state(np.random.default_rng(0)).describe_action(P(0, 1))


def test_initial_position_is_the_single_block_opening():
    state = GAME.new_initial_state(np.random.default_rng(0))
    assert state.to_text() == text(phase="place", turn=0)
    assert state.current_player == 0
    assert legal(state) == {P(s, 1) for s in range(10)}
    with pytest.raises(ValueError, match="at most 1 are allowed"):
        state.apply(P(3, 2))
    with pytest.raises(ValueError, match="transfer phase is over"):
        state.apply(NO)


def test_after_the_opening_player_1_may_swap_or_play_a_normal_turn():
    state = after(GAME.new_initial_state(np.random.default_rng(0)), P(4, 1))
    assert state.to_text() == text({4: "b"}, turn=1)
    assert state.current_player == 1
    assert legal(state) == {NO, SWAP} | {T(4, b) for b in range(10) if b != 4}
    normal = after(state, NO)
    assert normal.current_player == 1 and legal(normal) == ALL_PLACEMENTS
    assert after(normal, P2(2, 2, 4, 1)).to_text() == text({2: "rr", 4: "br"}, turn=2)


def test_swap_turns_every_block_and_player_0_plays_a_normal_turn():
    state = load({4: "b", 6: "bbrb", 1: FULL}, turn=1)
    swapped = after(state, SWAP)
    assert swapped.to_text() == text({4: "r", 6: "rrbr", 1: "r" * 11}, turn=2)
    assert swapped.current_player == 0 and swapped.info()["golden_owner"] is None
    assert SWAP not in legal(swapped)
    assert NO in legal(swapped) and P(0, 3) not in legal(swapped)
    assert after(swapped, NO).current_player == 0


def test_swap_exists_only_in_player_1s_first_transfer_phase():
    for fields in ({"turn": 2}, {"turn": 3}, {"turn": 1, "phase": "place"}):
        state = load({4: "b"}, **fields)
        assert SWAP not in legal(state)
        assert "first turn" in state.illegal_reason(SWAP)


# ---------------------------------------------------------------- transfers

def test_transfer_targets_are_empty_stands_or_the_same_top_colour():
    state = load({1: "bbrrr", 2: "r", 3: "b"})
    empties = [0, 4, 5, 6, 7, 8, 9]
    expected = {NO} | {T(1, 2)} | {T(2, 1)} | {T(a, b) for a in (1, 2, 3) for b in empties}
    assert legal(state) == expected
    assert "only go onto an empty stand or onto its own colour" in state.illegal_reason(T(3, 1))
    assert "empty" in state.illegal_reason(T(5, 1))
    assert "two different stands" in state.illegal_reason(T(1, 1))


def test_transfer_moves_the_whole_top_group_of_either_colour():
    state = load({1: "bbrrr", 2: "r"}, turn=4)  # blue (player_0) moves red blocks
    moved = after(state, T(1, 2))
    assert stand_lines(moved)[1:3] == ["bb", "rrrr"]
    assert moved.current_player == 0 and moved.to_text().endswith("phase: place\nturn: 4\nclosed_this_turn: 0")
    onto_empty = after(state, T(1, 7))
    assert stand_lines(onto_empty)[1] == "bb" and stand_lines(onto_empty)[7] == "rrr"


def test_overflow_is_removed_from_the_bottom_of_the_target():
    state = load({1: "rbbb", 2: "rrrrrrrrbb", 3: "b", 4: "b"})  # player_0 = blue
    assert T(1, 2) in legal(state)
    moved = after(state, T(1, 2))
    assert stand_lines(moved)[1:3] == ["r", "rrrrrrbbbbb"]
    assert moved.is_closed(2) and moved.owner(2) == 0 and moved.closed_this_turn
    assert moved.info()["scores"] == [1, 0]


def test_closing_by_transfer_needs_the_movers_own_colour():
    stands = {1: "rbbb", 2: "rrrrrrrrbb", 5: "rr", 6: "bbbbbbbbr"}
    blue = load(stands, turn=2)
    assert T(1, 2) in legal(blue)                       # own group closes stand 2
    assert T(5, 6) not in legal(blue)                   # red group would close stand 6
    assert "only a group of the mover's own colour" in blue.illegal_reason(T(5, 6))
    red = load(stands, turn=3)
    assert T(1, 2) not in legal(red) and T(5, 6) in legal(red)
    exact = after(red, T(5, 6))                          # 9 + 2 = 11 exactly, no trimming
    assert stand_lines(exact)[6] == "bbbbbbbbrrr" and exact.owner(6) == 1
    # a group of the other colour may still build a stand up to 10
    assert T(5, 0) in legal(blue) and T(6, 5) in legal(blue)


def test_closed_stands_are_neither_source_nor_target():
    state = load({1: FULL, 2: "b", 3: "rrrrrrrrrrb"})
    assert state.is_closed(1) and not any(T(1, b) in legal(state) or T(b, 1) in legal(state) for b in range(10))
    assert all(T(3, b) not in legal(state) for b in range(10))
    assert "closed" in state.illegal_reason(T(1, 2)) and "closed" in state.illegal_reason(T(2, 1))
    assert P(1, 1) not in legal(after(state, NO))


# ---------------------------------------------------------------- placements

def test_any_placement_of_one_to_three_blocks_on_at_most_two_stands():
    state = load({1: "b"}, phase="place")
    assert legal(state) == ALL_PLACEMENTS
    assert after(state, P2(1, 2, 9, 1)).to_text() == text({1: "bbb", 9: "b"}, turn=3)


def test_placement_fills_to_10_while_more_than_2_stands_are_open():
    state = load({1: "bbbbbbbbbb", 2: "rrrrrrrrr", 3: FULL}, phase="place")
    got = legal(state)
    assert P(1, 1) not in got and P(2, 1) in got and P(2, 2) not in got
    assert P2(1, 1, 2, 1) not in got and P2(2, 1, 4, 2) in got
    assert "at most 2 stands are open" in state.illegal_reason(P(1, 1))


def test_placement_may_close_when_at_most_2_stands_are_open():
    closed = {s: ("b" if s < 6 else "r") * 11 for s in range(2, 10)}  # 4 : 4
    state = load({**closed, 0: "rrrrrrrrrr", 1: "bbbbbbbbb"}, phase="place")
    assert legal(state) == {P(0, 1), P(1, 1), P(1, 2), P2(0, 1, 1, 1)}
    assert "stand holds at most 11" in state.illegal_reason(P(0, 2))
    done = after(state, P(1, 2))   # blue closes stand 1: 5 : 4, red may still win 5:5 on golden
    assert done.owner(1) == 0 and not done.is_over() and done.info()["scores"] == [5, 4]


def test_one_closure_per_turn_forbids_a_double_closing_placement():
    closed = {s: ("b" if s < 6 else "r") * 11 for s in range(2, 10)}  # 4 : 4
    state = load({**closed, 0: "rrrrrrrrrr", 1: "bbbbbbbbbb"}, phase="place")
    got = legal(state)
    assert P(0, 1) in got and P(1, 1) in got
    assert P2(0, 1, 1, 1) not in got
    assert "at most one stand" in state.illegal_reason(P2(0, 1, 1, 1))
    assert P2(0, 1, 1, 2) not in got and P(0, 2) not in got


def test_a_transfer_that_closed_a_stand_forbids_a_closing_placement():
    closed = {s: ("b" if s < 7 else "r") * 11 for s in range(3, 10)}          # blue 4 : red 3
    state = load({**closed, 0: "bbbbbbbbbb", 1: "bbrr", 2: "bbbbbbbbr"}, turn=5)  # red to move
    moved = after(state, T(1, 2))               # red closes stand 2: 4 : 4, stands 0 and 1 open
    assert moved.closed_this_turn and moved.is_closed(2) and moved.owner(2) == 1
    assert moved.to_text().endswith("phase: place\nturn: 5\nclosed_this_turn: 1")
    got = legal(moved)
    assert P(0, 1) not in got and P(1, 1) in got and P(1, 3) in got and P2(0, 1, 1, 1) not in got
    assert "already closed this turn" in moved.illegal_reason(P(0, 1))
    # without the transfer's closure the same two open stands could be closed by placement
    assert P(0, 1) in legal(load({**closed, 0: "bbbbbbbbbb", 1: "bb", 2: "rrrrrrrrrrr"}, turn=5, phase="place"))


def test_placement_is_mandatory_and_skipped_only_when_impossible():
    state = load({s: ("bbbbbbbbbb" if s < 5 else "rrrrrrrrrr") for s in range(10)}, turn=6)
    assert T(0, 1) in legal(state) and T(5, 6) not in legal(state)
    skipped = after(state, NO)       # all open stands at 10, 10 open: no placement possible
    assert skipped.current_player == 1 and skipped.to_text() == text(
        {s: ("bbbbbbbbbb" if s < 5 else "rrrrrrrrrr") for s in range(10)}, turn=7)
    normal = after(load({1: "b"}), NO)
    assert NO not in legal(normal) and legal(normal) == ALL_PLACEMENTS


# ---------------------------------------------------------------- the end

def test_sixth_closed_stand_wins_at_once():
    closed = {s: FULL for s in range(1, 6)}
    state = load({**closed, 6: "rbbbbbbbbb", 7: "b"}, turn=8)
    assert not state.is_over()       # 5 : 0, red could still win 5:5 with the golden stand
    won = after(state, T(7, 6))      # blue closes its sixth stand by transfer
    assert won.is_terminal() and won.current_player == -1
    assert won.to_text().endswith("phase: place\nturn: 8\nclosed_this_turn: 1")
    assert won.returns().tolist() == [1.0, -1.0] and won.info()["winners"] == [0]
    assert not won.legal_mask().any()


def test_five_five_goes_to_the_golden_stand():
    stands = {s: ("r" if s < 5 else "b") * 11 for s in range(10)}
    state = load(stands, turn=40)
    assert state.is_terminal() and state.info()["winners"] == [1] and state.info()["golden_owner"] == 1
    assert state.returns().tolist() == [-1.0, 1.0]


def test_early_decision_includes_the_golden_tie_break():
    # blue 5 with the golden stand, red 4, one stand open: red can only reach 5:5 -> blue has won
    stands = {s: ("b" if s < 5 else "r") * 11 for s in range(9)}
    state = load({**stands, 9: "rrr"}, turn=30)
    assert state.is_terminal() and state.info()["winners"] == [0]
    # the same without the golden stand: red could still win 5:5 by closing the golden one
    stands = {s: ("b" if s in (1, 2, 3, 4, 5) else "r") * 11 for s in range(1, 10) if s not in (8, 9)}
    state = load({**stands, 0: "r", 8: "b", 9: "r"}, turn=30)
    assert state.info()["scores"] == [5, 2] and not state.is_over()
    # 5 : 4 with the golden stand open and one more open: red may still take both
    stands = {s: ("b" if s <= 5 else "r") * 11 for s in range(1, 10)}
    stands[9] = "r"
    state = load({**stands, 0: "b"}, turn=30)
    assert state.info()["scores"] == [5, 3] and not state.is_over()


def test_game_decided_by_a_placement_ends_after_that_turn():
    closed = {s: ("b" if s <= 5 else "r") * 11 for s in range(1, 9)}   # blue 5, red 3
    state = load({**closed, 0: "rrrrrrrrrr", 9: "bbbbbbbbb"}, phase="place", turn=20)
    done = after(state, P(9, 2))
    assert done.is_terminal() and done.info()["winners"] == [0]
    assert done.to_text().endswith("to_move: 1\nphase: transfer\nturn: 21\nclosed_this_turn: 0")


def test_max_turns_cuts_the_game_as_a_draw():
    game = HighriseHeistGame(max_turns=3)
    state = game.new_initial_state(np.random.default_rng(0))
    for a in (P(0, 1), NO, P(1, 1), NO, P(2, 1)):
        state.apply(a)
    assert state.turn == 3 and state.is_truncated() and not state.is_terminal()
    assert state.current_player == -1 and not state.returns().any()
    env = sky_envs.make("highrise_heist_v0", max_turns=1)
    env.reset(seed=0)
    env.step(P(5, 1))
    assert all(env.truncations.values()) and set(env.rewards.values()) == {0}


# ---------------------------------------------------------------- text

def test_text_round_trip_and_field_order():
    source = text({0: "bbrrr", 3: "r", 7: "r" * 11}, phase="place", turn=5, closed=1)
    assert source.splitlines()[10:] == ["to_move: 1", "phase: place", "turn: 5", "closed_this_turn: 1"]
    state = GAME.state_from_text(source)
    assert state.to_text() == source
    assert state.info()["golden_owner"] is None and state.info()["scores"] == [0, 1]
    without_flag = text({0: "bbrrr"}, phase="place", turn=5).replace("\nclosed_this_turn: 0", "")
    assert GAME.state_from_text(without_flag).to_text() == text({0: "bbrrr"}, phase="place", turn=5)


@pytest.mark.parametrize("bad, where, message", [
    (text().replace("-\n", "bbbbbbbbbbbb\n", 1), "line 1", "holds 12 blocks"),
    (text().replace("-\n", "bxb\n", 1), "line 1", "unknown block 'x'"),
    (text().replace("-\n", "b-\n", 1), "line 1", "unknown block '-'"),
    (text().replace("-\n", "", 1), "line 9", "9 stand lines"),
    ("-\n" + text(), "line 11", "11 stand lines"),
    (text(turn=0), "line 12", "no transfer phase"),
    (text(phase="build"), "line 12", "phase must be"),
    (text(to_move=1, turn=2), "line 11", "contradicts turn"),
    (text(closed=1), "line 14", "needs phase: place"),
    (text(phase="place", closed=1), "line 14", "no stand is closed"),
    (text({1: "r" * 11}, phase="place", closed=1, turn=4), "line 14", "mover's colour"),
    (text(turn=-1, to_move=1), "line 13", "turn must be"),
    (text().replace("turn: 2\n", ""), "no 'turn:' line", "no 'turn:' line"),
    (text() + "\nqueue: 1", "line 15", "unknown field 'queue'"),
])
def test_bad_position_texts_name_the_line(bad, where, message):
    with pytest.raises(ValueError, match="bad position text") as error:
        GAME.state_from_text(bad)
    assert where in str(error.value) and message in str(error.value)


def test_a_loaded_placement_phase_without_placements_passes_the_turn():
    stands = {s: ("b" if s % 2 else "r") * 10 for s in range(10)}
    state = load(stands, phase="place", turn=9)
    assert state.current_player == 0 and state.to_text() == text(stands, turn=10)


# ---------------------------------------------------------------- options, env

@pytest.mark.parametrize("options, message", [
    ({"max_turns": 0}, "max_turns must be an integer >= 1"),
    ({"max_turns": "many"}, "max_turns must be an integer >= 1"),
    ({"max_turns": True}, "max_turns must be an integer >= 1"),
    ({"players": 4}, "unknown option 'players': highrise_heist_v0 takes max_turns"),
])
def test_bad_options_are_rejected_at_construction(options, message):
    with pytest.raises(ValueError, match=message):
        sky_envs.make("highrise_heist_v0", **options)


def test_raw_env_explains_illegal_actions_and_env_loses_the_mover():
    raw = sky_envs.make_raw("highrise_heist_v0")
    raw.reset(options={"position": text({1: "bbrrr", 3: "b"})})
    with pytest.raises(ValueError, match=r"action 31 \(transfer the top group of stand 3 onto stand 1\) is illegal "
                                         r"for player_0: .*own colour"):
        raw.step(T(3, 1))
    env = sky_envs.make("highrise_heist_v0")
    env.reset(options={"position": text({1: "bbrrr", 3: "b"})})
    with pytest.warns(UserWarning, match="illegal"):
        env.step(P(2, 1))
    assert env.rewards == {"player_0": -1, "player_1": 0}


def test_env_plays_a_turn_as_two_decisions_of_the_same_agent():
    env = sky_envs.make("highrise_heist_v0", render_mode="ansi")
    env.reset(seed=1)
    assert env.agent_selection == "player_0"
    env.step(P(0, 1))
    assert env.agent_selection == "player_1"
    env.step(NO)
    assert env.agent_selection == "player_1"
    obs = env.observe("player_1")
    assert obs["action_mask"][101:266].all() and not obs["action_mask"][:101].any()
    assert not env.observe("player_0")["action_mask"].any()
    env.step(P2(0, 1, 1, 2))
    assert env.agent_selection == "player_0"
    assert env.unwrapped.game_state.to_text() == text({0: "br", 1: "rr"}, turn=2)
    board = env.render()
    assert "player_0 (b) to transfer" in board and " 0*" in board


def test_rgb_render_draws_the_stands_and_marks_the_golden_one():
    env = sky_envs.make("highrise_heist_v0", render_mode="rgb_array")
    env.reset(options={"position": text({0: "bbb", 4: "r" * 11})})
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    colours = {tuple(c) for c in image.reshape(-1, 3)}
    assert (52, 101, 164) in colours and (204, 0, 0) in colours and (212, 175, 55) in colours
