"""Skybridge rules pinned on hand-made positions (``rules/skybridge.md``, both variants).

Positions are mostly 2x2 boards: foundations (0,0) (0,1) / (1,0) (1,1). Legal placements
are written ``"0T11"`` (colour 0 tall block on (1,1)), ``"2S00"``, ``"0R01"``,
``"0B10-11"`` (colour 0 bridge on (1,0)-(1,1)).
"""

import numpy as np
import pytest

from tests.games.skybridge.skybridge_support import action, game, legal, load, name_action, position


def options_of(state, seat):
    """The placements ``seat`` would have here (whoever is to move)."""
    return {name_action(state, a, seat) for a in state._seat_actions(seat)}


# ----------------------------------------------------------------------------- layout
def test_action_layout_and_names_on_the_default_board():
    g = game()
    assert (g.num_foundations, len(g.edges), g.slot_size, g.num_actions) == (9, 12, 39, 78)
    # horizontal edges row-major first, then vertical ones row-major
    assert g.edges[0][:2] == (0, 1) and g.edges[5][:2] == (7, 8)
    assert g.edges[6][:2] == (0, 3) and g.edges[11][:2] == (5, 8)
    s = g.new_initial_state(np.random.default_rng(0))
    assert s.describe_action(0) == "colour 0 tall block on a1"
    assert s.describe_action(9 + 4) == "colour 0 short block on b2"
    assert s.describe_action(18 + 8) == "colour 0 roof on c3"
    assert s.describe_action(27) == "colour 0 bridge on a1-b1"
    assert s.describe_action(27 + 11) == "colour 0 bridge on c2-c3"
    assert s.describe_action(39) == "colour 2 tall block on a1"
    assert s.describe_action(77) == "colour 2 bridge on c2-c3"
    # at the start every block fits everywhere (level 0), nothing else does
    assert legal(s) == {f"{c}{k}{r}{q}" for c in (0, 2) for k in "TS" for r in range(3) for q in range(3)}
    assert s.legal_actions().tolist() == list(range(18)) + list(range(39, 57))


def test_layout_on_other_boards_and_seat_counts():
    g = game(rows=2, cols=4, players=4)
    B, E = 8, 2 * 3 + 1 * 4
    assert g.num_actions == 2 * (3 * B + E) == 68
    s = g.new_initial_state(np.random.default_rng(0))
    assert not s.legal_mask()[g.slot_size:].any(), "slot 1 is unused with 4 seats"
    g3 = game(players=3)
    s3 = g3.new_initial_state(np.random.default_rng(0))
    # seat 0: colour 0 in slot 0, its neutral colour-3 blocks in slot 1
    assert {n for n in legal(s3) if n[0] == "3"} == {f"3{k}{r}{c}" for k in "TS" for r in range(3) for c in range(3)}
    assert s3.supply == [[[4, 4, 1, 2], [1, 1, 0, 0]] for _ in range(3)]


# ----------------------------------------------------------------------- lowest level
def test_blocks_go_on_the_lowest_level_not_on_their_own_colour():
    g = game(rows=2, cols=2)
    s = load(g, {"0 0": "1S", "0 1": "1T", "1 0": "1S", "1 1": "0S"}, {(0, 0): "T=1 S=1"})
    # height 2 towers: (0,0), (1,0) and (1,1), but (1,1) is topped by colour 0
    assert legal(s) == {"0T00", "0S00", "0T10", "0S10"}


def test_own_colour_blocked_at_the_lowest_level_goes_to_the_next_level():
    g = game(rows=2, cols=2)
    s = load(g, {"0 0": "0S", "0 1": "1T", "1 0": "0S", "1 1": "1S 1S"}, {(0, 0): "T=1 S=1", (0, 1): "S=1"})
    # colour 0: both height-2 towers are its own, so the next level (3); colour 2 (the same
    # seat's second colour) is not "own colour" of a colour-0 piece: it takes the lowest level
    assert legal(s) == {"0T01", "0S01", "2S00", "2S10"}
    assert "already colour 0" in s.illegal_reason(0)  # tall on (0,0): directly on its own colour
    assert "lowest level" in s.illegal_reason(action_index(s.game, 0, "T", 3))  # (1,1) is 4 high


def test_seed_fallback_when_the_rule_allows_a_block_nowhere():
    cells = {"0 0": "0S", "0 1": "0T", "1 0": "0S", "1 1": "1S 2R"}
    supply = {(0, 0): "T=1 S=1", (1, 0): "S=1"}
    seed = load(game(rows=2, cols=2), cells, supply)
    # every open tower is topped by colour 0: it may go on any open tower of the lowest height
    assert seed.current_player == 0
    assert legal(seed) == {"0T00", "0S00", "0T10", "0S10"}
    seed.apply(action(seed, "0S00"))
    assert seed.to_text().startswith("0 0: 0S 0S\n")
    # classic has no fallback: seat 0 cannot place and is skipped
    classic = load(game(rows=2, cols=2, variant="classic"), cells, supply)
    assert options_of(classic, 0) == set()
    assert classic.current_player == 1
    assert legal(classic) == {"1S00", "1S10"}


def test_roofed_towers_are_not_part_of_the_lowest_level():
    g = game(rows=2, cols=2)
    s = load(g, {"0 0": "1S 2R", "0 1": "1T", "1 0": "2T", "1 1": "1T"}, {(0, 0): "T=1"})
    assert s.lowest_level() == 3
    assert legal(s) == {"0T01", "0T10", "0T11"}
    assert "closed by a roof" in s.illegal_reason(action_index(g, 0, "T", 0))


def action_index(g, slot, kind, target):
    B = g.num_foundations
    offset = {"T": 0, "S": B, "R": 2 * B, "B": 3 * B}[kind]
    return slot * g.slot_size + offset + target


# ------------------------------------------------------------------- own-colour rule
@pytest.mark.parametrize("below, seed_expected, classic_expected", [
    ("0T", {"0S01"}, {"0S11"}),  # tall [0,3) beside a short on (0,1) from 2: [2,4) overlaps
    ("0S", {"0S01"}, {"0S01"}),  # short [0,2) beside [2,4): they do not touch
])
def test_classic_spans_of_tall_beside_short(below, seed_expected, classic_expected):
    cells = {"0 0": below, "0 1": "1S", "1 0": "1S 2S", "1 1": "2T"}
    for variant, expected in (("seed", seed_expected), ("classic", classic_expected)):
        s = load(game(rows=2, cols=2, variant=variant), cells, {(0, 0): "S=1"})
        assert legal(s) == expected, variant


def test_classic_tall_and_short_can_differ_and_roofs_count_one_storey():
    cells = {"0 0": "1S 1S 0S", "0 1": "1S", "1 0": "1T", "1 1": "1T"}
    supply = {(0, 0): "T=1 S=1 R=1"}
    classic = load(game(rows=2, cols=2, variant="classic"), cells, supply)
    # colour 0 occupies [4,6) on (0,0). A short on (0,1) spans [2,4): fine; a tall [2,5) touches,
    # and so does a tall on (1,0) [3,6): the tall goes to (1,1), which is not adjacent to (0,0).
    # Roofs span [base, base+1): (0,1) [2,3) and (1,0) [3,4) are fine, (0,0) is its own colour.
    assert legal(classic) == {"0S01", "0T11", "0R01", "0R10", "0R11"}
    assert "touch a colour 0 piece on the adjacent a1" in classic.illegal_reason(action_index(classic.game, 0, "T", 1))
    seed = load(game(rows=2, cols=2), cells, supply)
    assert legal(seed) == {"0S01", "0T01", "0R01", "0R10", "0R11"}


def test_classic_roof_touching_its_colour_and_diagonals_not_touching():
    g = game(rows=2, cols=2, variant="classic")
    s = load(g, {"0 0": "1S 0S", "0 1": "1T", "1 0": "1S", "1 1": "1T"}, {(0, 0): "R=1"})
    # roofs on (1,0) [2,3) and (0,1) [3,4) would touch colour 0's [2,4) on (0,0); (1,1) is diagonal
    assert legal(s) == {"0R11"}
    s = load(g, {"0 0": "0T", "0 1": "1T", "1 0": "1T", "1 1": "1S"}, {(0, 0): "S=1"})
    # (1,1) is only diagonal to (0,0): spans may overlap, the pieces do not touch
    assert legal(s) == {"0S11"}


# --------------------------------------------------------------------------- bridges
BRIDGE_BASE = {"0 0": "1S", "0 1": "2S", "1 0": "1T", "1 1": "3T"}


@pytest.mark.parametrize("change, seed_expected, classic_expected", [
    ({}, {"0B00-01"}, {"0B00-01", "0B10-11"}),             # seed: only at the lowest level
    ({"0 1": "1S"}, set(), {"0B00-01", "0B10-11"}),        # seed: tops of different colours
    ({"0 1": "0S"}, set(), {"0B10-11"}),                   # not on its own colour (either end)
    ({"1 1": ""}, set(), {"0B00-01"}),                     # seed: an empty foundation is the lowest level
    ({"0 1": "2S 3R"}, set(), {"0B10-11"}),                # not on a roofed tower
    ({"0 0": "1S 2Be", "0 1": "3S 2Bw"}, {"0B10-11"}, {"0B10-11"}),  # not directly on a bridge
    ({"0 0": "1T 0S", "0 1": "1S", "1 1": "2T"}, set(), set()),      # classic: touches colour 0 at [3,5)
    ({"0 0": "1T 1S 0S", "0 1": "1S", "1 1": "2T"}, set(), {"0B10-11"}),  # colour 0 at [5,7): no touch
])
def test_bridge_conditions(change, seed_expected, classic_expected):
    cells = {**BRIDGE_BASE, **change}
    for variant, expected in (("seed", seed_expected), ("classic", classic_expected)):
        s = load(game(rows=2, cols=2, variant=variant), cells, {(0, 0): "B=1"})
        assert options_of(s, 0) == expected, variant


def test_bridge_placement_joins_both_towers_and_scores_in_seed():
    g = game(rows=2, cols=2)
    s = load(g, BRIDGE_BASE, {(0, 0): "B=1 S=1", (1, 0): "S=1"})
    s.apply(action(s, "0B00-01"))
    text = s.to_text()
    assert "0 0: 1S 0Be\n0 1: 2S 0Bw\n" in text
    assert s.heights[:2] == [3, 3]
    assert "supply 0 0: T=0 S=1 B=0 R=0" in text
    assert s.scores() == [2 * (3 + 3), 3 + 3]
    # blocks may go on a bridge end; then the bridge no longer doubles
    assert legal(s) == {"1S00", "1S01", "1S11"}  # (1,0) is topped by colour 1
    s.apply(action(s, "1S00"))
    assert s.scores() == [3, 5 + 3 + 3]


def test_error_messages_name_the_bridge_rule():
    g = game(rows=2, cols=2)
    s = load(g, BRIDGE_BASE, {(0, 0): "B=1 S=1"})
    B = g.num_foundations
    assert "equal height" in s.illegal_reason(3 * B + 2)           # (0,0)-(1,0): 2 vs 3
    assert "lowest level" in s.illegal_reason(3 * B + 1)           # (1,0)-(1,1) at 3
    s = load(g, {**BRIDGE_BASE, "0 1": "1S"}, {(0, 0): "B=1 S=1"})
    assert "different top colours" in s.illegal_reason(3 * B)


# ------------------------------------------------------------------------------ roofs
def test_roofs_need_an_open_tower_of_height_one_or_more():
    g = game(rows=2, cols=2)
    s = load(g, {"0 0": "1S 2R", "0 1": "1T", "1 0": "2T"}, {(0, 0): "T=1 R=1"})
    assert legal(s) == {"0T11", "0R01", "0R10"}
    assert "empty" in s.illegal_reason(action_index(g, 0, "R", 3))
    assert "nothing goes on a roof" in s.illegal_reason(action_index(g, 0, "R", 0))
    s = load(g, {"0 0": "1S 2R", "0 1": "0T", "1 0": "2T"}, {(0, 0): "R=1"})
    assert legal(s) == {"0R10"}  # not directly on its own colour


def test_the_last_roof_closes_the_game_and_scores():
    g = game(rows=2, cols=2)
    cells = {"0 0": "1S 2R", "0 1": "1T 3R", "1 0": "2T 1R", "1 1": "3T"}
    s = load(g, cells, {(0, 0): "R=1", (1, 0): "T=2"})
    assert legal(s) == {"0R11"}
    s.apply(action(s, "0R11"))
    assert s.is_terminal() and s.current_player == -1
    assert s.to_text().endswith("to_move: -")
    assert s.scores() == [2 + 3, 3 + 3]
    assert s.winners() == [1]
    assert s.returns().tolist() == [-1.0, 1.0]
    assert s.info() == {"scores": [5, 6], "colours": [[0, 2], [1, 3]], "winners": [1]}


# ------------------------------------------------------------------- turn order, end
def test_nobody_can_place_ends_the_game_with_pieces_left():
    cells = {"0 0": "1S 0S", "0 1": "0T", "1 0": "0T", "1 1": "1S 0S"}
    classic = load(game(rows=2, cols=2, variant="classic"), cells, {(0, 0): "T=1"}, to_move="-")
    assert classic.is_terminal() and classic.supply[0][0][0] == 1
    assert classic.scores() == [0, 0] and classic.returns().tolist() == [0.0, 0.0]
    seed = load(game(rows=2, cols=2), cells, {(0, 0): "T=1"})
    assert legal(seed) == {"0T01", "0T10"}
    with pytest.raises(ValueError, match="says the game is over"):
        load(game(rows=2, cols=2), cells, {(0, 0): "T=1"}, to_move="-")


def test_seats_without_a_placement_are_skipped():
    g = game(rows=2, cols=2, players=3)
    s = load(g, {}, {(0, 0): "T=2", (2, 0): "S=1"})
    assert s.current_player == 0
    s.apply(action(s, "0T00"))
    assert s.current_player == 2          # seat 1 has nothing
    s.apply(action(s, "2S01"))
    assert s.current_player == 0          # the last seat able keeps placing
    s.apply(action(s, "0T10"))
    assert s.is_terminal() and s.to_text().endswith("to_move: -")
    # a loaded seat to move without a placement passes the turn on
    assert load(g, {}, {(0, 0): "T=1", (2, 0): "S=1"}, to_move="1").current_player == 2


# --------------------------------------------------------------------------- scoring
@pytest.mark.parametrize("players, variant, cells, scores", [
    # seed: the top colour's seat scores the height; a bridge on top of both: 2 x (hA + hB)
    (2, "seed", {"0 0": "1S 0Be", "0 1": "2S 0Bw", "1 0": "1T", "1 1": "0S 3S"}, [12, 7]),
    # a covered end: no doubling; roofs count for their colour (2 is seat 0's)
    (2, "seed", {"0 0": "1S 0Be 1S", "0 1": "2S 0Bw", "1 0": "1T 2R", "1 1": "0S 3S"}, [6, 9]),
    # 3 seats: the neutral colour 3 scores for nobody; seat 2's bridge doubles
    (3, "seed", {"0 0": "1S 2Be", "0 1": "0S 2Bw", "1 0": "1T 3S", "1 1": "2T"}, [0, 0, 15]),
    # classic: only roofed towers; a seat's bridge with one end roofed by it adds the other's height
    (2, "classic", {"0 0": "1S 0Be 2R", "0 1": "2S 0Bw", "1 0": "1T 3R", "1 1": "0T"}, [6, 3]),
    # both ends roofed by the bridge's seat (colours 0 and 2): both count double
    (2, "classic", {"0 0": "1S 0Be 2R", "0 1": "2S 0Bw 2R", "1 0": "1T 3R", "1 1": "0T"}, [12, 3]),
    # the other end roofed by the opponent: it scores its roof, the bridge seat the bonus
    (2, "classic", {"0 0": "1S 0Be 2R", "0 1": "2S 0Bw 1R", "1 0": "1T", "1 1": "0T"}, [6, 3]),
    # both ends roofed by the opponent: no bonus for the bridge's seat
    (2, "classic", {"0 0": "1S 0Be 1R", "0 1": "2S 0Bw 3R", "1 0": "1T 3R", "1 1": "0T 2R"}, [3, 9]),
    # a bridge on top of both but unroofed scores nothing in classic
    (2, "classic", {"0 0": "1S 0Be", "0 1": "2S 0Bw", "1 0": "1T", "1 1": "0T"}, [0, 0]),
    # 3 seats classic: a neutral tower roofed by seat 1 is seat 1's; a vertical bridge of seat 2
    (3, "classic", {"0 0": "3T 1R", "0 1": "0S 2Bs 2R", "1 0": "3S", "1 1": "1S 2Bn"}, [0, 3, 6]),
])
def test_scoring(players, variant, cells, scores):
    g = game(rows=2, cols=2, players=players, variant=variant)
    s = load(g, cells, to_move="-")
    assert s.is_terminal()
    assert s.scores() == scores
    best = max(scores)
    winners = [i for i, v in enumerate(scores) if v == best]
    assert s.info()["winners"] == winners
    expected = [0.0] * players if len(winners) == players else [1.0 if i in winners else -1.0 for i in range(players)]
    assert s.returns().tolist() == expected


def test_score_reward_is_own_score_minus_the_mean_of_the_others():
    g = game(rows=2, cols=2, players=3, variant="classic", reward="score")
    s = load(g, {"0 0": "3T 1R", "0 1": "0S 2Bs 2R", "1 0": "3S", "1 1": "1S 2Bn"}, to_move="-")
    assert s.returns().tolist() == [0 - 4.5, 3 - 3.0, 6 - 1.5]
    g2 = game(rows=2, cols=2, reward="score")
    s2 = load(g2, {"0 0": "1S 0Be", "0 1": "2S 0Bw", "1 0": "1T", "1 1": "0S 3S"}, to_move="-")
    assert s2.returns().tolist() == [5.0, -5.0]


def test_ties_between_some_and_all_seats():
    g = game(rows=2, cols=2, players=3)
    two = load(g, {"0 0": "0T", "0 1": "1T", "1 0": "2S"}, to_move="-")
    assert two.scores() == [3, 3, 2] and two.returns().tolist() == [1.0, 1.0, -1.0]
    everyone = load(g, {"0 0": "0T", "0 1": "1T", "1 0": "2T"}, to_move="-")
    assert everyone.returns().tolist() == [0.0, 0.0, 0.0]
    assert everyone.info()["winners"] == [0, 1, 2]


def test_scores_during_play_are_the_current_tally_and_rewards_stay_zero():
    g = game(rows=2, cols=2)
    s = load(g, {"0 0": "0T"}, {(1, 0): "S=1"}, to_move="1")
    assert s.scores() == [3, 0] and "winners" not in s.info()
    assert s.returns().tolist() == [0.0, 0.0]


# ------------------------------------------------------------------------- the text
def test_the_rules_file_example_line_and_exact_round_trip():
    g = game()
    text = position(g, {"1 2": "0T 3S 1Bw", "1 1": "2S 0T 1Be"}, {(0, 0): "T=2 S=4 B=1 R=2", (1, 1): "S=3"})
    state = g.state_from_text(text)
    assert "1 2: 0T 3S 1Bw" in state.to_text()
    assert state.to_text() == text
    assert state.heights[4:6] == [6, 6]
