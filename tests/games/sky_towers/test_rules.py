"""Sky Towers: every rule sentence of rules/sky_towers.md, on hand-made positions."""

import pytest

from sky_envs.core.state import IllegalActionError
from tests.games.sky_towers.sky_towers_support import (ASK, BOTTOM, DISCARD, DISMANTLE, DRAW, EXCHANGE, GIVE, KEEP,
                                           LEFT, RIGHT, STOP, TAKE, B, C, fields, legal, load, play,
                                           position)

# ====================================================================== layout


def test_action_layout_matches_the_rules_table():
    s = load(position())
    L = s.layout
    assert L.N == 303 and s.game.num_actions == 303
    assert (L.STOP, L.KEEP, L.BOTTOM) == (247, 261, 262)
    assert B(1, 0) == 23 and B(10, 13) == 162 and C(8, 1, 0) == 163 and C(9, 3, 13) == 246
    assert (EXCHANGE(1), EXCHANGE(3), GIVE(1), GIVE(10)) == (248, 250, 251, 260)
    assert (ASK(1, 1), ASK(3, 10), DISCARD(1), DISCARD(10)) == (263, 292, 293, 302)
    assert L.describe(B(4, RIGHT())) == "build a 4 on a new tower at the right end of your row"
    assert L.describe(C(9, 2, 3)) == "build a 9 on slot 3 of the row of the seat at offset +2"
    assert L.describe(ASK(2, 7)) == "ask the seat at offset +2 for a 7"
    assert L.describe(DISCARD(5)) == "discard a card of value 5"


@pytest.mark.parametrize("T", [1, 5, 20])
def test_other_row_sizes_shift_the_layout_by_the_formula(T):
    s = load(position(slots=T), max_towers=T)
    L = s.layout
    assert L.N == STOP(T) + 56 == 99 + 17 * T
    for v in range(1, 11):
        for p in range(T + 2):
            assert L.decode[B(v, p, T)][0:4:3] == (3, p) and L.decode[B(v, p, T)][1] == v
    for v in (8, 9):
        for o in (1, 2, 3):
            assert L.decode[C(v, o, T + 1, T)] == (4, v, o, T + 1)
    assert L.decode[ASK(3, 10, T)] == (10, 10, 3, 0) and L.decode[DISCARD(10, T)] == (11, 10, 0, 0)


# ====================================================================== building


def test_main_actions_exact_set_with_the_1_rule_the_10_rule_and_2_seat_blocking():
    # player_1's outermost towers show 6 (leftmost) and 2 (rightmost): both block player_0
    s = load(position(hands={0: "1 2 4 6 10"}, rows={0: "3.5 1", 1: "6 4.2"}, open="7"))
    expected = {DRAW(), TAKE(7), DISMANTLE(0), DISMANTLE(1),
                B(1, 0), B(1, 1), B(1, LEFT()), B(1, RIGHT()),   # only a 1 on the 1
                B(4, 0), B(4, LEFT()), B(4, RIGHT()),
                B(10, LEFT()), B(10, RIGHT())}                   # a 10 only starts a tower
    assert legal(s) == expected
    assert "blocked" in s.illegal_reason(B(2, 0)) and "player_1" in s.illegal_reason(B(6, 0))
    assert "only a 1 may be put on a 1" in s.illegal_reason(B(4, 1))
    assert "first card of a new tower" in s.illegal_reason(B(10, 0))
    with pytest.raises(IllegalActionError, match=r"action 37 \(build a 2 on slot 0 of your row\) is illegal"):
        s.apply(B(2, 0))


def test_a_tower_never_exceeds_21_and_completes_at_exactly_21():
    s = load(position(hands={0: "2 3 6"}, rows={0: "10.9 10"}, action_cards="down up"))
    assert B(3, 0) not in legal(s) and "exceed 21" in s.illegal_reason(B(3, 0))
    assert B(6, 1) in legal(s) and B(6, 0) not in legal(s)
    s.apply(B(2, 0))
    f = fields(s)
    assert f["row0"] == "10" and f["pile0"] == "10.9.2"
    assert f["action_cards"] == "up up", "completing a tower flips the action card back"
    assert s.info()["scores"] == [1, 0]  # 10 and 9 have no sail, the 2 has one


def test_new_towers_only_at_the_ends_and_slots_renumber():
    s = load(position(hands={0: "5 6"}, rows={0: "3 4"}))
    s.apply(B(5, LEFT()))
    assert fields(s)["row0"] == "5 3 4"
    s.apply(B(6, RIGHT()))
    assert fields(s)["row0"] == "5 3 4 6"


def test_an_empty_row_offers_both_ends_with_the_same_result():
    a = load(position(hands={0: "5"}))
    assert {B(5, LEFT()), B(5, RIGHT())} <= legal(a)
    b = a.clone()
    a.apply(B(5, LEFT()))
    b.apply(B(5, RIGHT()))
    assert a.to_text() == b.to_text()


def test_max_towers_limits_the_row():
    s = load(position(slots=2, hands={0: "5"}, rows={0: "3 4"}), max_towers=2)
    assert legal(s) == {DRAW(), DISMANTLE(0), DISMANTLE(1), B(5, 0, T=2), B(5, 1, T=2)}
    assert "already has 2 towers" in s.illegal_reason(B(5, LEFT(2), T=2))


def test_three_seats_block_with_the_left_neighbours_rightmost_and_right_neighbours_leftmost():
    # seat 0: left neighbour is seat 2 (rightmost tower shows 7), right neighbour seat 1
    # (leftmost shows 3); seat 2's leftmost 5 and seat 1's rightmost 9 do not block
    s = load(position(players=3, hands={0: "3 5 7 9"}, rows={1: "3 9", 2: "5 7"}))
    builds = {a for a in legal(s) if 23 <= a < 247}
    assert {s.layout.decode[a][1] for a in builds} == {5, 9}
    assert "rightmost tower of player_2" in s.illegal_reason(B(7, LEFT()))
    assert "leftmost tower of player_1" in s.illegal_reason(B(3, LEFT()))


def test_four_seats_the_opposite_seat_never_blocks():
    s = load(position(players=4, hands={0: "5 6"}, rows={1: "6", 2: "5", 3: "4"}))
    assert B(5, LEFT()) in legal(s)      # seat 2 sits opposite
    assert B(6, LEFT()) not in legal(s)  # seat 1 is the right neighbour


def test_a_completed_tower_no_longer_blocks():
    s = load(position(hands={0: "2 5", 1: "9"}, rows={0: "10.9"}))
    play(s, B(2, 0), DRAW())
    assert s.current_player == 1 and B(9, LEFT()) in legal(s)


# ====================================================================== turn, dismantle


def test_two_actions_per_turn_then_the_next_seat():
    s = load(position(players=3))
    play(s, DRAW())
    assert (s.current_player, s.actions_left) == (0, 1)
    play(s, DRAW())
    assert (s.current_player, s.actions_left, s.turns) == (1, 2, 1)
    assert STOP() not in legal(s), "a normal turn cannot stop early"
    assert "normal turn must take 2 actions" in s.illegal_reason(STOP())


def test_dismantle_takes_the_tower_back_and_locks_until_a_completion():
    s = load(position(hands={0: "9"}, rows={0: "3.5 10"}))
    s.apply(DISMANTLE(0))
    f = fields(s)
    assert f["hand0"] == "3 5 9" and f["row0"] == "10" and f["action_cards"] == "down up"
    assert f["known"] == "1>0=3.5", "everyone saw the dismantled cards go to the hand"
    assert DISMANTLE(0) not in legal(s)
    assert "action card is face down" in s.illegal_reason(DISMANTLE(0))
    s.apply(B(9, 0))  # 10 + 9 = 19
    assert fields(s)["action_cards"] == "down up"


def test_a_tower_completed_by_another_seat_flips_the_action_card_back():
    s = load(position(hands={0: "8"}, rows={1: "10.3"}, action_cards="up down"))
    s.apply(C(8, 1, 0))
    f = fields(s)
    assert f["pile1"] == "10.3.8" and f["action_cards"] == "up up" and f["row1"] == "-"


def test_a_seat_that_cannot_act_any_more_ends_its_turn():
    # the deck ran out in player_0's turn; after building its only card it has nothing to do
    s = load(position(hands={0: "4", 1: "1"}, rest="discards", end="0", action_cards="down up"))
    s.apply(B(4, LEFT()))
    assert s.current_player == 1 and s.turns == 1 and fields(s)["final"] == "yes" and s.actions_left == 3


# ====================================================================== effects


def test_2_exchange_take_at_random_then_give_back():
    text = position(hands={0: "2 5", 1: "7 9"})
    s = load(text, seed=3)
    s.apply(B(2, LEFT()))
    assert (fields(s)["phase"], legal(s)) == ("exchange", {STOP(), EXCHANGE(1)})
    s.apply(EXCHANGE(1))
    f = fields(s)
    kept = int(f["hand1"])
    taken = 16 - kept
    assert f["phase"] == "give 1" and kept in (7, 9) and f["hand0"] == f"5 {taken}"
    assert legal(s) == {GIVE(5), GIVE(taken)}
    s.apply(GIVE(5))
    f = fields(s)
    assert f["hand1"] == f"5 {kept}" and f["phase"] == "main" and f["hand0"] == str(taken)
    assert s.actions_left == 1 and s.current_player == 0
    assert f["known"] == f"0>1=5 1>0={taken}", "each side knows the card it gave"
    # the random card comes from the state's generator: same seed, same card
    again = load(text, seed=3)
    play(again, B(2, LEFT()), EXCHANGE(1))
    assert fields(again)["hand1"] == str(kept)
    takes = set()
    for seed in range(20):
        other = load(text, seed=seed)
        play(other, B(2, LEFT()), EXCHANGE(1))
        takes.add(fields(other)["hand1"])
    assert takes == {"7", "9"}


def test_2_exchange_is_optional_and_needs_a_seat_with_two_cards():
    s = load(position(players=3, hands={0: "2 5", 1: "7", 2: "3 4 6"}))
    s.apply(B(2, LEFT()))
    assert legal(s) == {STOP(), EXCHANGE(2)}
    assert "at least 2" in s.illegal_reason(EXCHANGE(1))
    assert "no seat at offset +3" in s.illegal_reason(EXCHANGE(3))
    s.apply(STOP())
    assert fields(s)["phase"] == "main" and s.actions_left == 1
    lone = load(position(hands={0: "2 5", 1: "7"}))
    lone.apply(B(2, LEFT()))
    assert fields(lone)["phase"] == "main", "no seat to exchange with: no decision"


def test_3_peek_shows_the_top_card_only_to_the_peeker_then_top_or_bottom():
    s = load(position(hands={0: "3 8"}, deck="9 1 2"))
    s.apply(B(3, LEFT()))
    assert fields(s)["phase"] == "peek" and legal(s) == {KEEP(), BOTTOM()}
    peek = s.game.obs_layout.o_peek
    assert s.observation(0)[peek:peek + 10].tolist() == [0] * 8 + [1, 0]
    assert not s.observation(1)[peek:peek + 10].any()
    bottom = s.clone()
    bottom.apply(BOTTOM())
    assert bottom.to_text().count("9@0") == 1 and fields(bottom)["deck"].startswith("1 2 ")
    assert fields(bottom)["deck"].endswith(" 9@0")
    assert not bottom.observation(0)[peek:peek + 10].any(), "only while deciding"
    s.apply(KEEP())
    assert fields(s)["deck"].startswith("9@0 1 2 ")
    play(s, B(8, LEFT()), DRAW())  # player_1 draws the peeked 9: player_0 knows it
    assert fields(s)["known"] == "0>1=9"


def test_4_rush_adds_more_4s_to_the_same_tower_in_one_action():
    s = load(position(hands={0: "4 4 4 4"}, rows={0: "5"}))
    s.apply(B(4, 0))
    assert fields(s)["phase"] == "rush 0" and legal(s) == {STOP(), B(4, 0)}
    assert "only another 4 on the same tower" in s.illegal_reason(B(4, LEFT()))
    play(s, B(4, 0), B(4, 0))
    assert fields(s)["row0"] == "5.4.4.4" and fields(s)["phase"] == "rush 0"
    s.apply(B(4, 0))  # 5 + 4 4 4 4 = 21: complete, the rush ends
    f = fields(s)
    assert f["pile0"] == "5.4.4.4.4" and f["phase"] == "main" and s.actions_left == 1
    assert "romance=0" in f["bonuses"] and "perfect=0" in f["bonuses"]


def test_4_rush_stops_on_request_or_when_no_4_fits():
    s = load(position(hands={0: "4 4 4"}, rows={0: "10"}))
    s.apply(B(4, 0))
    s.apply(STOP())
    assert fields(s)["row0"] == "10.4" and fields(s)["phase"] == "main"
    t = load(position(hands={0: "4 4"}, rows={0: "10.6"}))
    t.apply(B(4, 0))  # 20: another 4 would exceed 21, no rush decision
    assert fields(t)["phase"] == "main" and fields(t)["row0"] == "10.6.4"


def test_5_return_each_seat_over_5_discards_its_own_choice():
    s = load(position(players=3, hands={0: "5 1 1 2 2 3 3", 1: "1 2 3 4 6 6 7", 2: "7 7 8 9 10 10"}))
    s.apply(B(5, LEFT()))
    assert fields(s)["phase"] == "discard"
    assert s.current_player == 0 and legal(s) == {DISCARD(1), DISCARD(2), DISCARD(3)}
    s.apply(DISCARD(3))
    assert s.current_player == 1 and s.turn_of == 0, "the decision belongs to another seat"
    assert legal(s) == {DISCARD(v) for v in (1, 2, 3, 4, 6, 7)}
    assert "holds no 5" in s.illegal_reason(DISCARD(5))
    play(s, DISCARD(6), DISCARD(6))
    assert s.current_player == 2
    s.apply(DISCARD(10))
    f = fields(s)
    assert f["phase"] == "main" and s.current_player == 0 and s.actions_left == 1
    assert f["discards"] == "3 6 6 10"
    assert [s.hand_size[i] for i in range(3)] == [5, 5, 5]


def test_5_without_big_hands_has_no_decision():
    s = load(position(hands={0: "5 1"}))
    s.apply(B(5, LEFT()))
    assert fields(s)["phase"] == "main" and s.actions_left == 1


def test_6_ask_a_seat_for_a_value_or_draw():
    s = load(position(hands={0: "6 6", 1: "3 3 9"}))
    s.apply(B(6, LEFT()))
    assert fields(s)["phase"] == "ask"
    assert legal(s) == {DRAW()} | {ASK(1, v) for v in range(1, 11)}
    s.apply(ASK(1, 3))
    f = fields(s)
    assert f["hand0"] == "3 6" and f["hand1"] == "3 9" and f["known"] == "1>0=3"
    s.apply(B(6, RIGHT()))
    s.apply(ASK(1, 5))  # in vain: everyone now knows player_1 has no 5
    f = fields(s)
    assert f["hand1"] == "3 9" and f["lacks"] == "0>1=5" and s.current_player == 1


def test_6_draws_from_the_deck_and_cannot_draw_from_an_empty_one():
    s = load(position(hands={0: "6", 1: "1"}, deck="8 2"))
    play(s, B(6, LEFT()), DRAW())
    assert fields(s)["hand0"] == "8"
    empty = load(position(hands={0: "6", 1: "1"}, rest="discards", end="0"))
    empty.apply(B(6, LEFT()))
    assert DRAW() not in legal(empty) and "deck is empty" in empty.illegal_reason(DRAW())


def test_7_opens_the_top_card_which_a_draw_can_take():
    s = load(position(hands={0: "7"}, deck="3 4"))
    s.apply(B(7, LEFT()))
    f = fields(s)
    assert f["open"] == "3" and f["deck"].startswith("4 ") and s.actions_left == 1
    s.apply(TAKE(3))
    assert fields(s)["hand0"] == "3" and fields(s)["known"] == "1>0=3"


def test_8_and_9_chaos_on_other_rows_with_the_builders_blocking():
    s = load(position(players=3, hands={0: "8 9"}, rows={1: "10.2", 2: "5"}))
    chaos = {a for a in legal(s) if 163 <= a < 247}
    assert chaos == {C(8, 1, 0), C(9, 1, 0), C(8, 1, LEFT()), C(8, 1, RIGHT()), C(9, 1, LEFT()), C(9, 1, RIGHT()),
                     C(8, 2, 0), C(9, 2, 0), C(8, 2, LEFT()), C(8, 2, RIGHT()), C(9, 2, LEFT()), C(9, 2, RIGHT())}
    blocked = load(position(players=3, hands={0: "8 9"}, rows={1: "8", 2: "5"}))
    assert {blocked.layout.decode[a][1] for a in legal(blocked) if 23 <= a < 247} == {9}
    s.apply(C(8, 2, RIGHT()))
    assert fields(s)["row2"] == "5 8" and s.describe_action(C(9, 1, 0)) == "build a 9 on slot 0 of player_1's row"


def test_chaos_completion_gives_the_owner_tower_bonuses_but_not_king_or_perfect():
    s = load(position(players=3, hands={0: "9"}, rows={1: "10.2"}, piles={1: "10.9.2 10.8.3"}))
    s.apply(C(9, 1, 0))
    f = fields(s)
    assert f["pile1"] == "10.9.2 10.8.3 10.2.9"
    assert "big_ben=1" in f["bonuses"] and "perfect=-" in f["bonuses"] and "real_estate_king=-" in f["bonuses"]
    assert s.completed_turn == 0, "the builder did not complete a tower of its own"


def test_an_effect_decision_out_of_phase_is_rejected():
    s = load(position(hands={0: "3 8"}, deck="9 1 2"))
    s.apply(B(3, LEFT()))
    with pytest.raises(IllegalActionError, match="out of phase: player_0 must decide the 3's peek"):
        s.apply(DRAW())
    main = load(position())
    with pytest.raises(IllegalActionError, match="out of phase"):
        main.apply(DISCARD(1))


# ====================================================================== bonuses


def bonus_after(build_actions, **parts):
    s = load(position(**parts))
    play(s, *build_actions)
    return fields(s)["bonuses"]


def test_sky_bonus_tower_of_1s_2s_3s():
    b = bonus_after([B(1, 0)], hands={0: "1 5"}, rows={0: "3.3.3.3.3.2.2.1"})
    assert b == "big_ben=- sky=0 triple=- romance=- lucky=- real_estate_king=- perfect=-"


def test_triple_bonus_two_sets_of_three_and_six_equal_cards_count_twice():
    assert "triple=0" in bonus_after([B(4, 0)], hands={0: "4 5"}, rows={0: "3.3.3.4.4"})
    assert "triple=0" in bonus_after([B(9, 0)], hands={0: "9 5"}, rows={0: "2.2.2.2.2.2"})
    assert "triple=-" in bonus_after([B(6, 0)], hands={0: "6 5"}, rows={0: "3.3.3.4.2"})


def test_romance_bonus_four_5s_and_lucky_three_7s():
    b = bonus_after([B(5, 0), B(1, 0)], hands={0: "5 1 2"}, rows={0: "5.5.5"})
    assert "romance=0" in b and "triple=-" in b
    assert "lucky=0" in bonus_after([B(7, 0)], hands={0: "7 5"}, rows={0: "7.7"})
    assert "lucky=-" in bonus_after([B(3, 0)], hands={0: "3 5"}, rows={0: "7.7.4"})


def test_real_estate_king_two_towers_in_one_turn_and_perfect_with_the_last_card():
    s = load(position(hands={0: "2 3"}, rows={0: "10.9 10.8"}))
    s.apply(B(2, 0))
    assert "real_estate_king=-" in fields(s)["bonuses"]
    s.apply(B(3, 0))
    f = fields(s)
    assert "real_estate_king=0" in f["bonuses"] and "perfect=0" in f["bonuses"]
    assert s.info()["scores"] == [2 + 3 + 2, 0]
    one = load(position(hands={0: "2 3"}, rows={0: "10.9"}))
    one.apply(B(2, 0))
    assert "perfect=-" in fields(one)["bonuses"], "a card was left in the hand"


def test_real_estate_king_counts_a_single_turn():
    s = load(position(hands={0: "2 3", 1: "1"}, rows={0: "10.9 10.8"}, completed=0, actions=1))
    s.apply(B(2, 0))
    play(s, DRAW(), DRAW())  # player_1's turn
    s.apply(B(3, 0))
    assert "real_estate_king=-" in fields(s)["bonuses"]


def test_a_later_achiever_takes_a_bonus_over_but_big_ben_stays():
    s = load(position(hands={0: "7 3"}, rows={0: "7.7"}, piles={1: "7.7.7"}, bonuses={"lucky": 1}))
    s.apply(B(7, 0))
    assert "lucky=0" in fields(s)["bonuses"]
    ben = load(position(hands={0: "2 3"}, rows={0: "10.9"}, piles={0: "10.6.5 10.7.4", 1: "10.5.6 10.4.7 10.3.8"},
                        bonuses={"big_ben": 1}))
    ben.apply(B(2, 0))
    assert "big_ben=1" in fields(ben)["bonuses"] and ben.ten_towers[0] == 3
    first = load(position(hands={0: "2 3"}, rows={0: "10.9"}, piles={0: "10.6.5 10.7.4"}))
    first.apply(B(2, 0))
    assert "big_ben=0" in fields(first)["bonuses"]


def test_bonuses_left_out_by_option_are_not_claimed_and_sails_follow_the_table():
    s = load(position(hands={0: "7 3"}, rows={0: "7.7"}).replace(" lucky=-", ""), bonuses={
        "big_ben": 5, "sky": 3, "triple": 4, "romance": 3, "real_estate_king": 3, "perfect": 1})
    s.apply(B(7, 0))
    assert "lucky" not in s.info()["bonuses"] and s.info()["scores"][0] == 3
    rich = load(position(hands={0: "7 3"}, rows={0: "7.7"}), bonuses={
        "big_ben": 5, "sky": 3, "triple": 4, "romance": 3, "lucky": 10, "real_estate_king": 3, "perfect": 1})
    rich.apply(B(7, 0))
    assert rich.info()["scores"][0] == 3 + 10


# ====================================================================== the end


def test_drawing_the_last_card_finishes_the_turn_then_a_final_round_of_up_to_3_actions():
    s = load(position(players=3, turn_of=1, hands={1: "4 5", 2: "8", 0: "1"}, deck="3", rest="discards"))
    s.apply(DRAW())
    assert fields(s)["end"] == "1" and s.current_player == 1, "the drawer finishes its turn"
    s.apply(B(4, LEFT()))
    assert fields(s)["final"] == "yes" and s.current_player == 2 and s.actions_left == 3
    assert STOP() in legal(s) and DRAW() not in legal(s)
    s.apply(B(8, LEFT()))
    assert s.current_player == 2 and s.actions_left == 2
    s.apply(STOP())
    assert s.current_player == 0 and s.actions_left == 3
    s.apply(STOP())
    assert s.current_player == 1, "the final round ends with the seat that drew the last card"
    play(s, B(5, LEFT()), B(3, 0))
    assert s.current_player == 1 and s.actions_left == 1
    s.apply(DISMANTLE(0))
    assert s.is_terminal() and s.current_player == -1 and fields(s)["phase"] == "over"


def test_a_7_opening_the_last_card_also_starts_the_end():
    s = load(position(hands={0: "7 1"}, deck="3", rest="discards"))
    s.apply(B(7, LEFT()))
    assert fields(s)["end"] == "0" and fields(s)["open"] == "3"


def test_final_round_skips_a_seat_that_cannot_act():
    s = load(position(players=3, turn_of=2, hands={2: "5", 1: "9"}, rows={2: "10.2"}, deck="", rest="discards",
                      end="2", final="no", action_cards="up up down"))
    s.apply(B(5, 0))   # 17; then player_2 has nothing left to do: its turn ends
    # player_0 holds nothing and has no towers: skipped; player_1 plays its final turn
    assert fields(s)["final"] == "yes" and s.current_player == 1 and s.turns == 2


def winner_of(piles, bonuses=None, players=2):
    s = load(position(players=players, turn_of=0, hands={0: "1"}, piles=piles, bonuses=bonuses, rest="discards",
                      end="0", final="yes", actions=3))
    s.apply(STOP())
    assert s.is_terminal()
    return s.returns().tolist(), s.info()["winners"]


def test_most_sails_wins():
    # 7.7.7 has 3 sails and 3 flags; 10.9.2 has 1 sail; 10.6.5 has 2 sails and 1 flag
    assert winner_of({0: "7.7.7", 1: "10.6.5"}) == ([1.0, -1.0], [0])
    assert winner_of({0: "10.9.2", 1: "10.6.5"}) == ([-1.0, 1.0], [1])


def test_bonus_sails_count_and_flags_break_ties():
    # 3 sails each; flags 3 against 1
    assert winner_of({0: "10.9.2", 1: "7.7.7"}, bonuses={"perfect": 0}) == ([-1.0, 1.0], [1])
    assert winner_of({0: "10.9.2 10.8.3", 1: "7.7.7"}, bonuses={"real_estate_king": 0}) == ([1.0, -1.0], [0])


def test_a_full_tie_is_a_shared_win():
    assert winner_of({0: "10.6.5", 1: "10.5.6"}) == ([0.0, 0.0], [0, 1])
    three = winner_of({0: "10.6.5", 1: "10.5.6", 2: "10.9.2"}, players=3)
    assert three == ([1.0, 1.0, -1.0], [0, 1])


def test_max_turns_truncates_as_a_draw():
    s = load(position(), max_turns=1)
    play(s, DRAW(), DRAW())
    assert s.is_truncated() and not s.is_terminal() and s.current_player == -1
    assert not s.returns().any() and not s.legal_mask().any()
