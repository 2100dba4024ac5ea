"""Scala: every rule sentence of rules/scala.md on hand-made positions."""

from __future__ import annotations

import numpy as np
import pytest

from sky_envs.games.scala import ScalaGame
from sky_envs.games.scala.board import CELL_BY_NAME, CELL_NAMES, NUM_CELLS
from sky_envs.games.scala.rules import all_targets, move_targets

# the empty board of the rules file, row 14 first ('#' no cell)
EMPTY = [
    "#####.#####",
    "####...####",
    "###.....###",
    "##.......##",
    "#.........#",
    "...........",
    "....###....",
    "....###....",
    "...........",
    "#.........#",
    "##.......##",
    "###.....###",
    "####...####",
    "#####.#####",
]
START_TEXT = "\n".join([
    "#####.#####",
    "####...####",
    "###.....###",
    "##.......##",
    "#...XXX...#",
    "..XXXXXXX..",
    "..XX###XX..",
    "..OO###OO..",
    "..OOOOOOO..",
    "#...OOO...#",
    "##.......##",
    "###.....###",
    "####...####",
    "#####.#####",
    "to_move: O",
])


def pos(O: str = "", X: str = "", to_move: str = "O") -> str:
    """Position text with Blue stones ``O`` and Red stones ``X`` given by cell names."""
    grid = [list(row) for row in EMPTY]
    for letter, names in (("O", O), ("X", X)):
        for name in names.split():
            col, row = "abcdefghijk".index(name[0]), int(name[1:])
            assert grid[14 - row][col] == ".", name
            grid[14 - row][col] = letter
    return "\n".join("".join(r) for r in grid) + f"\nto_move: {to_move}"


def load(text: str, **options):
    return ScalaGame(**options).state_from_text(text)


def act(a: str, b: str) -> int:
    return CELL_BY_NAME[a] * NUM_CELLS + CELL_BY_NAME[b]


def ends_of(state, name: str) -> set[str]:
    """Names of the legal end cells of the stone on ``name``."""
    start = CELL_BY_NAME[name]
    row = state.legal_mask()[start * NUM_CELLS:(start + 1) * NUM_CELLS]
    return {CELL_NAMES[i] for i in np.flatnonzero(row)}


def moves(state) -> set[str]:
    return {f"{CELL_NAMES[a // NUM_CELLS]}-{CELL_NAMES[a % NUM_CELLS]}" for a in state.legal_actions()}


def stones(state) -> tuple[str, str]:
    """(Blue cells, Red cells) as sorted space-separated names."""
    out = []
    for mask in state.stones:
        out.append(" ".join(sorted(CELL_NAMES[i] for i in range(NUM_CELLS) if mask >> i & 1)))
    return out[0], out[1]


# ------------------------------------------------------------------ board
def test_cell_numbering_is_the_rules_files():
    assert CELL_NAMES[:5] == ("f1", "e2", "f2", "g2", "d3")
    assert CELL_NAMES[87] == "f14"
    assert len(CELL_NAMES) == NUM_CELLS == 88
    expected = [f"{'abcdefghijk'[c]}{14 - i}" for i in range(13, -1, -1)
                for c, ch in enumerate(EMPTY[i]) if ch == "."]
    assert list(CELL_NAMES) == expected
    # the hole and the corners are not cells
    for name in ("e7", "f7", "g7", "e8", "f8", "g8", "a5", "k10", "e1", "g14"):
        assert name not in CELL_BY_NAME


def test_start_position_and_first_mover():
    game = ScalaGame()
    state = game.new_initial_state(np.random.default_rng(0))
    assert state.to_text() == START_TEXT
    assert state.current_player == 0
    assert stones(state) == (
        " ".join(sorted("c7 d7 h7 i7 c6 d6 e6 f6 g6 h6 i6 e5 f5 g5".split())),
        " ".join(sorted("e10 f10 g10 c9 d9 e9 f9 g9 h9 i9 c8 d8 h8 i8".split())),
    )
    # a few opening moves: steps, a jump and a two-jump chain
    assert {"e5-e4", "f6-f4", "f5-b7", "d6-d10"} <= moves(state)
    assert len(moves(state)) == 62


def test_adjacency_does_not_cross_the_hole():
    s = load(pos(O="d8", X="c8"))
    # d8's neighbours: c7 d7 c9 d9 e9 (c8 is taken); nothing east across the hole e7..e8
    assert ends_of(s, "d8") == {"c7", "d7", "c9", "d9", "e9", "b8"}


# ------------------------------------------------------------------ moves
def test_steps_go_to_empty_neighbours_and_never_into_the_defended_goal():
    s = load(pos(O="e13", X="f13", to_move="X"))
    # Red's f13: e12 f12 g12 g13 are empty; e13 is taken; f14 is the goal Red defends
    assert ends_of(s, "f13") == {"e12", "f12", "g12", "g13"}
    assert "goal Red (X) defends" in s.illegal_reason(act("f13", "f14"))


def test_a_single_jump_over_either_colour():
    s = load(pos(O="e13", X="f13"))
    # Blue's e13: four steps (f14 included: the goal Blue attacks) and one jump over X f13
    assert ends_of(s, "e13") == {"d12", "e12", "f12", "f14", "g13"}
    # over its own f13 to g13 and over Red's e12 to e11
    s = load(pos(O="e13 f13", X="e12"))
    assert ends_of(s, "e13") == {"d12", "f12", "f14", "g13", "e11"}


def test_a_chain_changes_direction_and_mixes_colours():
    # c9 jumps NE over X d10 to e11, E over O f11 to g11, S over X g10 to g9
    s = load(pos(O="c9 f11", X="d10 g10"))
    assert ends_of(s, "c9") == {"b8", "c8", "d8", "b9", "d9", "b10", "c10", "e11", "g11", "g9"}
    s.apply(act("c9", "g9"))
    # X d10 is left alone: a one-coloured group, removed
    assert stones(s) == ("f11 g9", "g10")
    assert s.current_player == 1


def test_a_chain_never_lands_in_the_movers_defended_goal():
    # d3 -> f1 (over e2) -> h3 (over g2): Red may pass through f1 (the goal it attacks)
    # and may stop there; Blue defends f1, so neither f1 nor h3 is reachable for Blue
    red = load(pos(O="e2 g2", X="d3", to_move="X"))
    assert {"f1", "h3"} <= ends_of(red, "d3")
    blue = load(pos(O="d3", X="e2 g2"))
    assert ends_of(blue, "d3") == {"e3", "c4", "d4", "e4"}
    assert "goal Blue (O) defends" in blue.illegal_reason(act("d3", "f1"))
    assert "neither an empty neighbour" in blue.illegal_reason(act("d3", "h3"))
    # the same at the other end for Red: f14 is Red's defended goal
    red_top = load(pos(O="e13 g13", X="d12", to_move="X"))
    assert not {"f14", "h12"} & ends_of(red_top, "d12")
    blue_top = load(pos(O="d12", X="e13 g13"))
    assert {"f14", "h12"} <= ends_of(blue_top, "d12")


def test_passing_through_the_attacked_goal_mid_chain_does_not_win():
    s = load(pos(O="e2 g2", X="d3", to_move="X"))
    s.apply(act("d3", "h3"))
    assert s.current_player == 0 and s.winner == -1
    assert stones(s) == ("g2", "h3")      # O e2 no longer touches anything: removed


def test_the_start_cell_is_empty_during_the_chain_but_no_move_ends_there():
    # f5 -> h5 (over g5) -> f5 (back over g5: the start counts as empty) -> d5 (over e5):
    # a chain may pass through its start cell; a chain back to the start is not a move
    s = load(pos(O="f5 e5", X="g5"))
    assert "f5" not in ends_of(s, "f5")
    assert {"h5", "d5"} <= ends_of(s, "f5")
    assert "another cell" in s.illegal_reason(act("f5", "f5"))
    # the engine's shared chain network gives the same ends as a search from this stone alone
    occ = s.stones[0] | s.stones[1]
    assert all_targets(s.stones[0], occ, 0) == {c: move_targets(c, occ, 0) for c in (CELL_BY_NAME["f5"], CELL_BY_NAME["e5"])
                                               if move_targets(c, occ, 0)}


def test_only_own_stones_move_onto_empty_cells():
    s = load(pos(O="e13", X="f13"))
    assert "Red's" in s.illegal_reason(act("f13", "g13"))
    assert "no stone on d4" in s.illegal_reason(act("d4", "d5"))
    assert "occupied" in s.illegal_reason(act("e13", "f13"))
    with pytest.raises(ValueError, match=r"\(f13-g13\) is illegal for player_0: the stone on f13 is Red's"):
        s.apply(act("f13", "g13"))


# ------------------------------------------------------------------ the split rule
# a row of stones on row 9 split by Blue's c9 -> b8 (b8 touches a9, b9, c8 only)
ROW9 = dict(O="a9 c9 e9", X="b9 d9 f9")


@pytest.mark.parametrize("rule", ["mover_loses", "illegal"])
def test_monochrome_groups_are_removed(rule):
    # c9 -> b10 leaves {a9 O, b9 X, b10 O} and {d9 O, e9 O}: the Blue pair goes
    s = load(pos(O="a9 c9 d9 e9", X="b9"), split_rule=rule)
    assert "c9-b10" in moves(s)
    s.apply(act("c9", "b10"))
    assert stones(s) == ("a9 b10", "b9")
    assert s.current_player == 1 and s.winner == -1
    assert s.info()["stones"] == [2, 1]


def test_nothing_left_loses_for_the_mover():
    s = load(pos(O="d9", X="e9"))
    assert ends_of(s, "d9") == {"c8", "d8", "c9", "c10", "d10", "e10", "f9"}
    s.apply(act("d9", "c9"))                # {c9 O} and {e9 X}: both removed
    assert stones(s) == ("", "")
    assert s.winner == 1 and s.end == "split"
    assert list(s.returns()) == [-1.0, 1.0]
    # the text of that end reads back with the same winner
    assert s.to_text().splitlines()[-2:] == ["winner: X", "to_move: X"]
    again = load(s.to_text())
    assert again.winner == 1 and again.to_text() == s.to_text()


def test_nothing_left_is_illegal_with_the_illegal_rule():
    s = load(pos(O="d9", X="e9"), split_rule="illegal")
    # only the cells touching X e9 keep one group
    assert ends_of(s, "d9") == {"d8", "d10", "e10", "f9"}
    assert "rule 2" in s.illegal_reason(act("d9", "c9"))


def test_the_biggest_mixed_group_is_kept_even_without_the_moved_stone():
    # c9 -> b8: {a9 O, b9 X, b8 O} (3) and {d9 X, e9 O, f9 X, g9 O} (4): the 4 stay
    s = load(pos(O="a9 c9 e9 g9", X="b9 d9 f9"))
    s.apply(act("c9", "b8"))
    assert stones(s) == ("e9 g9", "d9 f9")
    assert s.current_player == 1 and s.winner == -1


def test_the_illegal_rule_keeps_the_moved_stones_group():
    s = load(pos(O="a9 c9 e9 g9", X="b9 d9 f9"), split_rule="illegal")
    assert "c9-b8" in moves(s)
    s.apply(act("c9", "b8"))
    assert stones(s) == ("a9 b8", "b9")       # the bigger group is removed
    assert s.current_player == 1


def test_a_tie_for_biggest_loses_for_the_mover():
    s = load(pos(**ROW9))
    s.apply(act("c9", "b8"))                # {a9, b9, b8} and {d9, e9, f9}: 3 and 3
    assert s.winner == 1 and s.end == "split"
    assert stones(s) == ("a9 b8 e9", "b9 d9 f9")  # the tied groups stay
    # the board cannot show that the game is over: the text says so in an extra line
    assert s.to_text().splitlines()[-2:] == ["winner: X", "to_move: X"]
    again = load(s.to_text())
    assert again.winner == 1 and again.end == "split" and again.to_text() == s.to_text()
    assert load(s.to_text().replace("winner: X\n", "")).current_player == 1  # a live position


def test_a_tie_is_illegal_with_the_illegal_rule():
    s = load(pos(**ROW9), split_rule="illegal")
    assert "c9-b8" not in moves(s)
    assert "rule 4" in s.illegal_reason(act("c9", "b8"))
    with pytest.raises(ValueError, match="rule 4"):
        s.apply(act("c9", "b8"))


def test_a_stranded_moved_stone_is_removed_or_illegal():
    # c9 -> b8 strands the mover alone next to the mixed pair {d9 X, e9 O}
    loses = load(pos(O="c9 e9", X="d9"))
    loses.apply(act("c9", "b8"))
    assert stones(loses) == ("e9", "d9") and loses.current_player == 1
    illegal = load(pos(O="c9 e9", X="d9"), split_rule="illegal")
    assert "c9-b8" not in moves(illegal)
    assert "one-coloured group" in illegal.illegal_reason(act("c9", "b8"))
    assert "c9-c10" in moves(illegal)       # touching d9 keeps one group


# ------------------------------------------------------------------ goal, no move, max_turns
@pytest.mark.parametrize("rule", ["mover_loses", "illegal"])
def test_reaching_the_attacked_goal_wins(rule):
    s = load(pos(O="e13", X="f13"), split_rule=rule)
    s.apply(act("e13", "f14"))
    assert s.winner == 0 and s.end == "goal" and s.current_player == -1
    assert list(s.returns()) == [1.0, -1.0]
    assert s.info()["winners"] == [0]
    assert not s.legal_mask().any()
    again = load(s.to_text(), split_rule=rule)
    assert again.winner == 0 and again.end == "goal"
    # Red reaches f1 by the end of a chain
    red = load(pos(O="e2 g2", X="d3", to_move="X"), split_rule=rule)
    red.apply(act("d3", "f1"))
    assert red.winner == 1 and red.end == "goal"


def test_the_split_is_settled_before_the_goal():
    # e13 -> f14 leaves {f14 O} and {f12 X}: nothing mixed is left, so Blue loses
    s = load(pos(O="e13", X="f12"))
    s.apply(act("e13", "f14"))
    assert s.winner == 1 and s.end == "split"
    # the moved stone on the goal is removed by rule 1 (a mixed group elsewhere): no win
    s = load(pos(O="e13 c10", X="d11"))
    s.apply(act("e13", "f14"))
    assert s.winner == -1 and s.current_player == 1
    assert stones(s) == ("c10", "d11")
    assert "e13-f14" not in moves(load(pos(O="e13 c10", X="d11"), split_rule="illegal"))


@pytest.mark.parametrize("rule", ["mover_loses", "illegal"])
def test_winning_actions_are_the_goal_moves_that_win(rule):
    """``winning_actions`` (what search trusts as sure wins) against playing every legal
    move: a step and a chain onto the goal win, a goal move the split rule strands does not,
    and no random-game position gets a move that does not win or misses a goal win."""
    def brute(state):
        wins = []
        for action in state.legal_actions().tolist():
            child = state.clone()
            child.apply(action)
            if child.winner == state.current_player:
                wins.append(action)
        return wins

    two_ways = load(pos(O="e13 f10", X="f13 f11 e12"), split_rule=rule)  # e13-f14 steps, f10 jumps twice
    assert set(two_ways.winning_actions().tolist()) == {act("e13", "f14"), act("f10", "f14")} == set(brute(two_ways))
    stranded = load(pos(O="e13 c10", X="d11"), split_rule=rule)
    assert stranded.winning_actions().size == 0 and brute(stranded) == []
    assert load(pos(O="e2 g2", X="d3", to_move="X"), split_rule=rule).winning_actions().tolist() == [act("d3", "f1")]
    game, rng, checked = ScalaGame(split_rule=rule), np.random.default_rng(5), 0
    for _ in range(6):
        state = game.new_initial_state(rng)
        while state.current_player >= 0:
            assert state.winning_actions().tolist() == brute(state)
            checked += 1
            state.apply(int(rng.choice(state.legal_actions())))
    assert checked > 50


def test_a_player_without_a_legal_move_loses():
    box = "e13 f13 g13 d12 f12 h12"
    # Red's only stone sits on f14 walled in: every step and jump is blocked
    s = load(pos(O=box, X="f14", to_move="X"))
    assert s.current_player == -1 and s.winner == 0 and s.end == "no_move"
    # a move that walls Red in wins
    s = load(pos(O="e13 f13 g13 f12 h12 c11", X="f14"))
    s.apply(act("c11", "d12"))
    assert s.winner == 0 and s.end == "no_move"
    assert s.to_text().splitlines()[-1] == "to_move: X"


def test_no_legal_move_under_the_illegal_rule():
    # Red's lone f9 is far from Blue's a9: every step strands it (five legal but losing
    # moves with mover_loses, none with illegal: Red loses at once)
    loses = load(pos(O="a9", X="f9", to_move="X"))
    assert moves(loses) == {"f9-e9", "f9-g9", "f9-e10", "f9-f10", "f9-g10"}
    illegal = load(pos(O="a9", X="f9", to_move="X"), split_rule="illegal")
    assert illegal.current_player == -1 and illegal.winner == 0 and illegal.end == "no_move"


def test_max_turns_truncates_as_a_draw():
    s = ScalaGame(max_turns=2).new_initial_state(np.random.default_rng(0))
    s.apply(act("e5", "e4"))
    assert s.current_player == 1
    s.apply(act("e10", "e11"))
    assert s.is_truncated() and not s.is_terminal() and s.current_player == -1
    assert list(s.returns()) == [0.0, 0.0]
    assert s.info()["end"] == "max_turns" and s.info()["winners"] == []
    assert s.to_text().splitlines()[-1] == "to_move: O"


def test_a_win_on_the_last_ply_still_counts():
    s = load(pos(O="e13", X="f13"), max_turns=1)
    s.apply(act("e13", "f14"))
    assert s.is_terminal() and not s.is_truncated() and s.winner == 0


# ------------------------------------------------------------------ observation
def test_observation_channels():
    game = ScalaGame()
    s = game.state_from_text(pos(O="e13", X="f13"))
    for seat in (0, 1):
        obs = s.observation(seat)
        assert obs.shape == (14, 11, 5) and obs.dtype == np.float32
        assert obs[..., 0].sum() == 88
        assert obs[0, 0, 0] == 0 and obs[0, 5, 0] == 1      # a14 is no cell, f14 is
        assert obs[6, 4:7, 0].sum() == 0                   # the hole in row 8
    blue, red = s.observation(0), s.observation(1)
    e13, f13 = (1, 4), (1, 5)
    assert blue[e13 + (1,)] == 1 and blue[f13 + (2,)] == 1 and blue[..., 1:3].sum() == 2
    assert red[f13 + (1,)] == 1 and red[e13 + (2,)] == 1
    assert blue[0, 5, 3] == 1 and blue[13, 5, 4] == 1     # attacks f14, defends f1
    assert red[13, 5, 3] == 1 and red[0, 5, 4] == 1
    assert blue[..., 3].sum() == blue[..., 4].sum() == 1


def test_the_illegal_rule_forbids_a_one_coloured_moved_group_from_the_start():
    # at the start e5-d4, c6-b5, g5-h4 and i6-j5 leave the moved stone touching nothing. Read
    # literally, the variant would keep only that stone (Red has none left: Blue wins on ply 1);
    # the decision makes them illegal, while mover_loses only removes the stranded stone
    strict = ScalaGame(split_rule="illegal").state_from_text(START_TEXT)
    assert len(moves(strict)) == 58
    assert not {"e5-d4", "c6-b5", "g5-h4", "i6-j5"} & moves(strict)
    loose = ScalaGame().state_from_text(START_TEXT)
    loose.apply(act("e5", "d4"))
    assert "d4" not in stones(loose)[0].split() and loose.current_player == 1
    # not only a lone stone: d9-c8 joins the moved stone to O b8, a one-coloured pair apart
    # from the mixed {e9 O, f9 X}
    pair = load(pos(O="b8 d9 e9", X="f9"), split_rule="illegal")
    assert "d9-c8" not in moves(pair) and "d9-d10" in moves(pair)
    assert "one-coloured group" in pair.illegal_reason(act("d9", "c8"))
    loses = load(pos(O="b8 d9 e9", X="f9"))
    loses.apply(act("d9", "c8"))
    assert stones(loses) == ("e9", "f9")


def test_split_targets_of_a_connected_board_match_the_full_group_search():
    # split_legal_targets(connected=True) skips the group search when the moving stone's
    # neighbours hold together; it must give what the full search gives, on every stone of
    # positions from random play (always one group at the start of a turn)
    from sky_envs.games.scala.rules import split_legal_targets

    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(30):
        state = ScalaGame(split_rule="illegal").state_from_text(START_TEXT)
        while state.current_player >= 0:
            colour = state.current_player
            blue, red = state.stones
            assert state.connected
            for start, ends in all_targets(state.stones[colour], blue | red, colour).items():
                full = split_legal_targets(start, ends, blue, red, colour)
                assert split_legal_targets(start, ends, blue, red, colour, connected=True) == full
                assert full == state.targets(start)
                checked += 1
            state.apply(int(rng.choice(state.legal_actions())))
    assert checked > 1000


def test_ring_table_agrees_with_the_group_search():
    """``kernels.RING_LINKED`` (the settler's shortcut) against ``components`` for every set of
    occupied neighbours of every cell."""
    from sky_envs.games.scala import kernels
    from sky_envs.games.scala.board import NEIGHBOURS
    from sky_envs.games.scala.rules import components

    for cell in range(88):
        around = [int(c) for c in NEIGHBOURS[cell] if c >= 0]
        for ring in range(1, 1 << len(around)):
            occ = sum(1 << around[k] for k in range(len(around)) if ring >> k & 1)
            linked = len(components(occ)) == 1
            assert bool(kernels.RING_LINKED[cell, ring]) == linked
            assert kernels.ring_linked(cell, occ & kernels.HALF, occ >> kernels.HALF_BITS) == linked


@pytest.mark.parametrize("rule", ["mover_loses", "illegal"])
def test_every_legal_move_of_random_games_is_one_of_the_possible_actions(rule):
    """Game.possible_actions (a network's dense head keeps only their rows) holds every move
    random play meets, and random play meets nearly all of them: steps, and chains of jumps."""
    from sky_envs import vector
    from sky_envs.games.scala.board import POSSIBLE_ACTIONS

    game = ScalaGame(split_rule=rule)
    assert game.possible_actions is POSSIBLE_ACTIONS and len(POSSIBLE_ACTIONS) == 2420
    venv = vector.make("scala_v0", num_envs=64, seed=1, split_rule=rule)
    batch, rng, seen = venv.reset(), np.random.default_rng(1), np.zeros(game.num_actions, dtype=bool)
    for _ in range(1500):
        seen |= batch.action_mask.any(axis=0)
        batch = venv.step(vector.random_actions(batch.action_mask, rng))
    assert set(np.flatnonzero(seen)) <= set(POSSIBLE_ACTIONS.tolist())
    assert seen.sum() > 0.9 * len(POSSIBLE_ACTIONS)
    # a chain of three jumps, over both colours, to a cell no step reaches
    s = load(pos(O="c9 f11", X="d10 g10"))
    assert act("c9", "g9") in POSSIBLE_ACTIONS and s.legal_mask()[act("c9", "g9")]
