"""Golden Rush (4 seats): every rule sentence of rules/highrise_heist.md, part 2, on hand-made positions."""

import numpy as np
import pytest

import sky_envs
from sky_envs.games.highrise_heist import GoldenRushGame
from tests.games.highrise_heist.highrise_heist_support import after, legal

GAME = GoldenRushGame()
TEAMS = GoldenRushGame(mode="teams")
L = GAME.layout
NO = 81


def T(a, b):
    return a * 9 + b


def P(s, k):
    return 82 + 3 * s + k - 1


def P2(s, a, t, b):
    return L.placement_action({s: a, t: b})


def text(stands=None, phase="transfer", turn=0, closed=0, queue=(), to_move=None):
    lines = ["-"] * 9
    for s, blocks in (stands or {}).items():
        lines[s] = blocks
    to_move = turn % 4 if to_move is None else to_move
    lines += [f"to_move: {to_move}", f"phase: {phase}", f"turn: {turn}", f"closed_this_turn: {closed}",
              ("queue: " + " ".join(str(q) for q in queue)).rstrip()]
    return "\n".join(lines)


def load(stands=None, game=GAME, **fields):
    return game.state_from_text(text(stands, **fields))


def c(colour, n):
    return str(colour) * n


ALL_PLACEMENTS = set(range(82, 217))


# ---------------------------------------------------------------- layout and setup

def test_action_layout_matches_the_rules_file():
    assert GAME.num_actions == 217 and L.no_transfer == 81 and L.swap == -1
    assert L.single == 82 and L.pair == 109 and len(L.pairs) == 36
    assert P2(0, 1, 1, 1) == 109 and P2(7, 2, 8, 1) == 216
    assert GAME.observation_shape == (9, 11, 26)


def test_first_turn_has_no_limit_and_no_swap():
    state = GAME.new_initial_state(np.random.default_rng(0))
    assert state.to_text() == text() and state.current_player == 0
    assert legal(state) == {NO}
    placing = after(state, NO)
    assert legal(placing) == ALL_PLACEMENTS
    state = after(placing, P2(1, 2, 5, 1))
    assert state.to_text() == text({1: "00", 5: "0"}, turn=1)
    assert state.current_player == 1
    seats = [after(state, NO, P(2, 1), NO, P(2, 1), NO, P(2, 1)).current_player]
    assert seats == [0]


def test_capacities_start_at_11_near_10_far_10_centre():
    assert load().capacities() == [10, 11, 10, 11, 10, 11, 10, 11, 10]
    state = load({1: c(0, 11), 7: c(2, 11)}, queue=())
    assert state.capacities() == [10, 11, 11, 11, 10, 11, 10, 11, 11]


# ---------------------------------------------------------------- capacities

def test_far_stand_holds_10_while_its_near_stand_is_open():
    state = load({1: c(0, 5), 2: c(0, 10), 5: c(0, 2)}, phase="place")
    got = legal(state)
    assert P(2, 1) not in got and P(1, 3) in got
    assert "far stand holds 10 while its seat's near stand is open" in state.illegal_reason(P(2, 1))
    # a transfer may not overfill it either
    transfer = load({1: c(0, 5), 2: c(0, 9), 5: c(0, 2)})
    assert T(5, 2) not in legal(transfer) and T(5, 1) in legal(transfer)
    assert "holds 10 now" in transfer.illegal_reason(T(5, 2))
    # a two-stand placement is checked before it: it cannot close the near and fill the far
    both = load({1: c(0, 10), 2: c(0, 10)}, phase="place")
    assert P(1, 1) in legal(both) and P2(1, 1, 2, 1) not in legal(both)


def test_far_stand_closes_once_its_near_stand_is_closed():
    state = load({1: c(1, 11), 2: c(0, 10)}, phase="place")
    assert P(2, 1) in legal(state)
    done = after(state, P(2, 1))
    assert done.owner(1) == 1 and done.owner(2) == 0
    assert done.queue == [0] and done.to_text().endswith("queue: 0")


def test_centre_holds_10_until_some_seat_is_eligible_then_goes_to_the_queue_head():
    state = load({0: c(0, 10), 3: c(3, 5)}, phase="place")
    assert P(0, 1) not in legal(state)
    assert "centre holds 10 until some seat is eligible" in state.illegal_reason(P(0, 1))
    eligible = load({0: c(0, 10), 5: c(1, 11), 6: c(3, 11)}, phase="place", queue=(2,))
    done = after(eligible, P(0, 1))     # player_0 places the 11th block, on its own colour
    assert done.is_closed(0) and done.owner(0) == 2
    assert done.info()["scores"][2] == 15


# ---------------------------------------------------------------- transfers

def test_any_colour_may_close_by_transfer_but_never_beyond_capacity():
    state = load({3: c(3, 9), 6: "0033", 7: "333", 8: c(1, 10)})
    got = legal(state)
    assert T(6, 3) in got                 # 9 + 2 = 11: player_0 closes player_1's near with colour 3
    assert T(7, 3) not in got             # 9 + 3 = 12: nothing is trimmed, so it is illegal
    assert "would bring stand 3 (player_1 near) to 12 blocks but it holds 11" in state.illegal_reason(T(7, 3))
    closed = after(state, T(6, 3))
    assert closed.owner(3) == 3 and closed.to_text().splitlines()[3] == c(3, 11)
    assert closed.closed_this_turn and closed.to_text().splitlines()[6] == "00"


def test_transfer_targets_and_groups_as_in_the_2_seat_game():
    state = load({1: "1222", 2: "2", 3: "1"})
    empties = [0, 4, 5, 6, 7, 8]
    expected = {NO, T(1, 2), T(2, 1)} | {T(a, b) for a in (1, 2, 3) for b in empties}
    assert legal(state) == expected
    assert after(state, T(1, 2)).to_text().splitlines()[1:3] == ["1", "2222"]


def test_closures_count_at_once_for_the_placement_of_the_same_turn():
    # a transfer that closes player_0's near stand lets the placement fill its far one to 11
    state = load({1: c(0, 9), 2: c(0, 10), 4: "11", 3: "00"})
    placing = after(state, T(3, 1))
    assert placing.is_closed(1) and P(2, 1) in legal(placing)
    # a transfer that makes a seat eligible opens the centre for the placement
    state = load({0: c(3, 10), 1: c(0, 11), 2: c(0, 9), 3: "00"})
    placing = after(state, T(3, 2))
    assert placing.queue == [0] and P(0, 1) in legal(placing)
    done = after(placing, P(0, 1))
    assert done.owner(0) == 0 and done.is_closed(0)


def test_several_closures_in_one_turn():
    state = load({1: c(0, 9), 3: c(1, 10), 5: c(2, 10), 7: "00"})
    placing = after(state, T(7, 1))                  # closes stand 1
    done = after(placing, P2(3, 1, 5, 1))            # closes stands 3 and 5
    assert [done.owner(s) for s in (1, 3, 5)] == [0, 0, 0]
    assert done.current_player == 1


# ---------------------------------------------------------------- the queue

def test_queue_is_in_order_of_eligibility_whoever_owns_the_arm_stands():
    state = load({3: c(0, 11), 4: c(3, 10), 5: c(2, 11), 6: c(2, 11), 1: c(0, 11), 2: c(0, 10)},
                 phase="place", turn=1, queue=(2,))     # player_1 to place
    done = after(state, P(4, 1))                         # player_1 closes its far: eligible second
    assert done.queue == [2, 1]
    later = after(done, NO, P(2, 1))                     # player_2 closes player_0's far
    assert later.queue == [2, 1, 0]
    assert later.info()["queue"] == [2, 1, 0]


def test_seats_made_eligible_by_one_placement_queue_in_seat_order():
    state = load({3: c(3, 11), 4: c(3, 10), 7: c(1, 11), 8: c(1, 10)}, phase="place", turn=3)
    done = after(state, P2(4, 1, 8, 1))                  # player_3 closes both far stands
    assert done.queue == [1, 3]


# ---------------------------------------------------------------- scores and the end

FINAL = {0: c(1, 11), 1: c(0, 11), 2: c(0, 11), 3: c(1, 11), 4: c(2, 11),
         5: c(2, 11), 6: c(3, 11), 7: c(3, 11), 8: c(3, 11)}


def test_scoring_blocks_near_far_and_centre():
    state = load(FINAL, turn=40, queue=(3, 0, 1, 2))
    assert state.is_terminal() and state.current_player == -1
    # blocks 22/22/22/33; near +5, far +8, centre (queue head 3, not its colour 1) +15
    assert state.scores() == [22 + 5 + 8, 22 + 5, 22 + 8 + 5, 33 + 8 + 5 + 8 + 15]
    assert state.info()["winners"] == [3] and state.returns().tolist() == [-1, -1, -1, 1]


def test_teams_mode_adds_the_bonus_and_compares_team_totals():
    state = load(FINAL, game=TEAMS, turn=40, queue=(3, 0, 1, 2))
    assert state.scores() == [40, 32, 40, 74] and state.team_scores() == [80, 106]
    assert state.info()["winners"] == [1, 3] and state.returns().tolist() == [-1, 1, -1, 1]


def test_team_bonus_needs_both_members_eligible():
    stands = {1: c(0, 11), 2: c(0, 11), 3: c(1, 11), 4: c(1, 11), 5: c(2, 11), 6: c(2, 11), 7: "3"}
    ffa = load(stands, queue=(0, 1, 2))
    teams = load(stands, game=TEAMS, queue=(0, 1, 2))
    assert (np.array(teams.scores()) - ffa.scores()).tolist() == [5, 0, 5, 0]
    assert "team_scores" in teams.info() and "team_scores" not in ffa.info()


TIE = {0: "23232323232", 1: c(0, 11), 2: c(0, 11), 3: c(1, 11), 4: c(1, 11),
       5: "01010101012", 6: "01010101013", 7: "10101010102", 8: "10101010103"}


def test_equal_best_scores_are_all_winners():
    state = load(TIE, turn=44, queue=(2, 3, 0, 1))
    assert state.scores() == [55, 55, 33, 23]
    assert state.info()["winners"] == [0, 1] and state.returns().tolist() == [1, 1, -1, -1]
    teams = load(TIE, game=TEAMS, turn=44, queue=(2, 3, 0, 1))
    assert teams.team_scores() == [98, 88] and teams.returns().tolist() == [1, -1, 1, -1]


def test_equal_team_totals_are_a_draw():
    draw = {**TIE, 5: "11111111112"}
    state = load(draw, game=TEAMS, turn=44, queue=(2, 3, 0, 1))
    assert state.scores() == [55, 65, 38, 28] and state.team_scores() == [93, 93]
    assert state.info()["winners"] == [] and not state.returns().any()


def test_score_reward_is_the_scaled_margin_over_the_mean():
    state = load(FINAL, game=GoldenRushGame(reward="score"), turn=40, queue=(3, 0, 1, 2))
    np.testing.assert_allclose(state.returns(), [-0.065, -0.145, -0.065, 0.275])
    teams = load(FINAL, game=GoldenRushGame(mode="teams", reward="score"), turn=40, queue=(3, 0, 1, 2))
    np.testing.assert_allclose(teams.returns(), [-0.13, 0.13, -0.13, 0.13])
    assert not load(game=GoldenRushGame(reward="score")).returns().any()


def test_game_ends_when_the_last_stand_closes():
    stands = {**FINAL, 0: c(1, 10)}
    state = load(stands, phase="place", turn=42, queue=(3, 0, 1, 2))
    assert not state.is_over() and state.current_player == 2
    done = after(state, P(0, 1))
    assert done.is_terminal() and done.owner(0) == 3
    assert done.to_text().endswith("to_move: 3\nphase: transfer\nturn: 43\nclosed_this_turn: 0\nqueue: 3 0 1 2")
    assert done.info()["scores"][3] == 69 and done.info()["scores"][2] == 36


def test_max_turns_cuts_the_game_as_a_draw():
    env = sky_envs.make("golden_rush_v0", max_turns=2)
    env.reset(seed=0)
    for action in (NO, P(1, 1), NO, P(1, 1)):
        env.step(action)
    assert all(env.truncations.values()) and set(env.rewards.values()) == {0}
    assert env.unwrapped.game_state.is_truncated()


# ---------------------------------------------------------------- text and options

def test_text_round_trip_with_the_queue():
    source = text({0: "0123", 1: c(2, 11), 2: c(3, 11), 5: c(1, 11), 6: c(0, 11), 7: "3"},
                  phase="place", turn=6, closed=1, queue=(2, 0))
    state = GAME.state_from_text(source)
    assert state.to_text() == source and state.queue == [2, 0]
    assert state.capacities()[0] == 11
    assert text().endswith("closed_this_turn: 0\nqueue:")


@pytest.mark.parametrize("bad, where, message", [
    (text({2: c(0, 11)}), "line 3", "far stand"),
    (text({0: c(0, 11)}), "line 1", "no seat is eligible"),
    (text({1: c(0, 11), 2: c(0, 11)}), "line 14", "eligible seats are [0]"),
    (text({1: c(0, 11), 2: c(0, 11)}, queue=(0, 0)), "line 14", "eligible seats are [0]"),
    (text(queue=(1,)), "line 14", "eligible seats are []"),
    (text(queue=("x",)), "line 14", "queue entry must be an integer"),
    (text({4: "014"}), "line 5", "unknown block '4'"),
    (text({4: "0b"}), "line 5", "unknown block 'b'"),
    (text({4: c(1, 12)}), "line 5", "holds 12 blocks"),
    ("-\n" + text(), "line 10", "10 stand lines"),
    (text(to_move=2, turn=1), "line 10", "contradicts turn"),
    (text(closed=1), "line 13", "needs phase: place"),
    (text(phase="place", closed=1), "line 13", "no stand is closed"),
    (text().replace("\nqueue:", ""), "no 'queue:' line", "no 'queue:' line"),
])
def test_bad_position_texts_name_the_line(bad, where, message):
    with pytest.raises(ValueError, match="bad position text") as error:
        GAME.state_from_text(bad)
    assert where in str(error.value) and message in str(error.value)


def test_a_2_seat_position_does_not_load_into_golden_rush():
    two_seat = "\n".join(["-"] * 10 + ["to_move: 0", "phase: place", "turn: 0", "closed_this_turn: 0"])
    with pytest.raises(ValueError, match="10 stand lines"):
        sky_envs.make("golden_rush_v0").reset(options={"position": two_seat})


@pytest.mark.parametrize("options, message", [
    ({"mode": "2v2"}, r"mode='2v2' is not valid: expected one of \['ffa', 'teams'\]"),
    ({"reward": "points"}, r"reward='points' is not valid: expected one of \['win', 'score'\]"),
    ({"max_turns": -3}, "max_turns must be an integer >= 1"),
    ({"mode": None}, "mode=None is not valid"),
])
def test_bad_options_are_rejected_at_construction(options, message):
    with pytest.raises(ValueError, match=message):
        sky_envs.make("golden_rush_v0", **options)


def test_options_are_recorded():
    assert GoldenRushGame(mode="teams", reward="score", max_turns=50).options() == {
        "mode": "teams", "reward": "score", "max_turns": 50}


# ---------------------------------------------------------------- env

def test_env_turn_order_rewards_and_infos():
    env = sky_envs.make("golden_rush_v0", mode="teams", render_mode="ansi")
    env.reset(options={"position": text({**FINAL, 0: c(1, 10)}, phase="place", turn=42, queue=(3, 0, 1, 2))})
    assert env.agent_selection == "player_2"
    env.step(P(0, 1))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}
    assert env.infos["player_0"]["winners"].tolist() == [0, 1, 0, 1]
    assert env.unwrapped.game_state.info()["team_scores"] == [40 + 41, 31 + 74]
    assert "game over: winners player_1 player_3" in env.render()


def test_raw_env_explains_a_capacity_violation():
    raw = sky_envs.make_raw("golden_rush_v0")
    raw.reset(options={"position": text({1: c(0, 5), 2: c(0, 10)}, phase="place")})
    with pytest.raises(ValueError, match=r"action 88 \(place 1 on stand 2 \(player_0 far\)\) is illegal for "
                                         r"player_0: .*far stand holds 10"):
        raw.step(P(2, 1))


def test_rgb_render_shows_blocked_levels_and_the_centre():
    env = sky_envs.make("golden_rush_v0", render_mode="rgb_array")
    env.reset(options={"position": text({0: "0123", 1: c(2, 11)})})
    image = env.render()
    colours = {tuple(x) for x in image.reshape(-1, 3)}
    for rgb in ((52, 101, 164), (204, 0, 0), (78, 154, 6), (237, 212, 0), (212, 175, 55), (120, 120, 120)):
        assert rgb in colours
