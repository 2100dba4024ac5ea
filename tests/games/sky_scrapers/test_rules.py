"""Sky Scrapers: every rule sentence of rules/sky_scrapers.md on hand-made positions."""

import numpy as np
import pytest

import sky_envs
from sky_envs.core.boards import DIRECTION_NAMES
from sky_envs.games.sky_scrapers import SkyScrapersGame

N, NE, E, SE, S, SW, W, NW = range(8)


def load(text, **options):
    """A position in a game of that box (random positioning: any box size is valid)."""
    options.setdefault("positioning", "random")
    game = SkyScrapersGame(**options)
    return game.state_from_text(text)


def moves(state):
    """Legal moves as (row, col, direction name) triples."""
    cols = state.board.cols
    out = set()
    for a in state.legal_actions():
        cell, d = divmod(int(a), 8)
        out.add((cell // cols, cell % cols, DIRECTION_NAMES[d]))
    return out


def act(state, r, c, d):
    state.apply((r * state.board.cols + c) * 8 + d)



def test_a_stack_moves_exactly_its_height_and_must_land_on_a_stack():
    s = load("a2 . b1 b1 .\nto_move: 0", board="square", rows=1, cols=5)
    # height 2: from c0 lands on c2 (a tile); c1 between may be empty
    assert moves(s) == {(0, 0, "E")}
    act(s, 0, 0, E)
    assert s.to_text().splitlines()[0] == ". . a3 b1 ."
    # the top tile decides the owner: player_0 now owns a stack of 3 made of a, b tiles
    assert s.heights[2] == 3 and s.tops[2] == 0


def test_a_single_tile_moves_one_cell_and_never_onto_an_empty_cell():
    s = load(". a1 .\n. b1 .\n. . .", board="square", rows=3, cols=3)
    assert moves(s) == {(0, 1, "S")}


def test_all_eight_directions_and_orthogonal_lines():
    text = "b1 b1 b1\nb1 a1 b1\nb1 b1 b1"
    all8 = load(text, board="square", rows=3, cols=3)
    assert moves(all8) == {(1, 1, d) for d in DIRECTION_NAMES}
    ortho = load(text, board="square", rows=3, cols=3, lines="orthogonal")
    assert moves(ortho) == {(1, 1, d) for d in ("N", "E", "S", "W")}


def test_hex_lines_use_the_six_axial_neighbours():
    s = load("b1 b1 b1\nb1 a1 b1\nb1 b1 b1", board="square", rows=3, cols=3, lines="hex")
    assert moves(s) == {(1, 1, d) for d in ("N", "NE", "E", "S", "SW", "W")}


def test_the_path_must_stay_on_board_cells():
    # a3 on a row with a hole two cells away: the 3-cell path crosses the hole
    s = load("a3 . # b1\n. . . .\n. . . b1\nb1 . . b1", board="square", rows=4, cols=4)
    # E: crosses the hole -> illegal; S: lands on b1 at (3, 0); SE: lands on b1 at (3, 3)
    assert moves(s) == {(0, 0, "S"), (0, 0, "SE")}
    assert "crosses a hole" in s.illegal_reason(0 * 8 + E)
    # the edge of the board ends a line too
    edge = load("b1 a2 .", board="square", rows=1, cols=3)
    assert edge.current_player == 1 and moves(edge) == {(0, 0, "E")}  # a2 runs off both ends


def test_any_height_moves_sky_scrapers_too_and_heights_add_up():
    s = load("a5 . . . . b2 . .\nto_move: 0", board="square", rows=1, cols=8)
    assert moves(s) == {(0, 0, "E")}
    act(s, 0, 0, E)
    assert s.to_text().splitlines()[0] == ". . . . . a7 . ."


def test_seat_without_a_move_is_skipped_and_the_last_mover_keeps_moving():
    # player_1's only stack cannot move; player_0 keeps moving until no move is left
    s = load("a1 a1 . a1 . . b1\nto_move: 1", board="square", rows=1, cols=7)
    assert s.current_player == 0 and moves(s) == {(0, 0, "E"), (0, 1, "W")}
    act(s, 0, 0, E)
    assert s.current_player == 0 and moves(s) == {(0, 1, "E")}
    act(s, 0, 1, E)
    assert s.current_player == 0 and moves(s) == {(0, 3, "E")}
    act(s, 0, 3, E)
    assert s.is_terminal() and s.current_player == -1
    assert s.to_text().splitlines()[0] == ". . . . . . a4" and s.returns().tolist() == [1.0, -1.0]


def test_the_game_ends_when_no_seat_can_move_and_most_sky_scrapers_wins():
    s = load("a4 . . . . . b4 . . . . . a4 . . .", board="square", rows=1, cols=16)
    assert s.is_terminal()
    assert s.winners() == [0] and s.returns().tolist() == [1.0, -1.0]
    assert s.info()["skyscrapers"] == [2, 1]


def test_equal_counts_the_tallest_sky_scraper_wins_then_draw():
    tallest = load("a4 . . . . . b5 . . . . . a1", board="square", rows=1, cols=13)
    assert tallest.is_terminal() and tallest.returns().tolist() == [-1.0, 1.0]
    draw = load("a5 . . . . . . b5 . . . .", board="square", rows=1, cols=12)
    assert draw.returns().tolist() == [0.0, 0.0]
    nobody = load("a3 . . . . b3 . .", board="square", rows=1, cols=8)
    assert nobody.is_terminal() and nobody.returns().tolist() == [0.0, 0.0]


def test_skyscraper_height_option():
    s = load("a3 . . . b2", board="square", rows=1, cols=5, skyscraper_height=3)
    assert s.is_terminal() and s.returns().tolist() == [1.0, -1.0]


def test_four_seats_co_winners_and_losers():
    text = "a4 . . . . b4 . . . . . c1 . . d1"
    s = load(text, board="square", rows=1, cols=15, players=4)
    assert s.is_terminal()
    assert s.winners() == [0, 1]
    assert s.returns().tolist() == [1.0, 1.0, -1.0, -1.0]
    everyone = load("a1 . b1 . c1 . d1 .", board="square", rows=1, cols=8, players=4)
    assert everyone.returns().tolist() == [0.0] * 4


def test_four_seats_play_in_seat_order_skipping_seats_without_moves():
    # c (seat 2) cannot move; seat order 0, 1, 3
    s = load("a1 b1 . . . . c1 . d1 a1", board="square", rows=1, cols=10, players=4)
    assert s.current_player == 0
    act(s, 0, 0, E)       # a onto b: seat 1 now has no stack
    assert s.current_player == 3


def test_standard_positioning_colours_and_first_mover():
    game = SkyScrapersGame()
    s = game.new_initial_state(np.random.default_rng(0))
    assert s.current_player == 0
    rows = s.to_text().splitlines()
    assert rows[0] == "a1 b1 a1 b1 a1 b1" and rows[1] == "b1 a1 b1 a1 b1 a1"
    four = SkyScrapersGame(players=4).new_initial_state(np.random.default_rng(0))
    text = four.to_text().splitlines()
    assert text[0].split()[:2] == ["a1", "b1"] and text[1].split()[:2] == ["c1", "d1"]
    assert four.board.rows == 8


def test_random_positioning_coin_toss_then_colour_choice_by_second_mover():
    game = SkyScrapersGame(positioning="random", tiles_per_player=10)
    first_movers = set()
    for seed in range(12):
        s = game.new_initial_state(np.random.default_rng(seed))
        assert s.phase == "choose"
        chooser = s.current_player
        assert s.legal_actions().tolist() == [9 * 36, 9 * 36 + 1]
        assert np.count_nonzero(s.tops == 0) == np.count_nonzero(s.tops == 1) == 10
        s.apply(9 * 36 + 1)                 # the second mover takes colour b
        assert s.seat_colours[chooser] == 1 and s.seat_colours[1 - chooser] == 0
        assert s.to_move == 1 - chooser    # the coin-toss winner moves first
        first_movers.add(1 - chooser)
    assert first_movers == {0, 1}


def test_random_positioning_four_players_deals_colours():
    s = SkyScrapersGame(positioning="random", players=4).new_initial_state(np.random.default_rng(3))
    assert s.phase == "move" and sorted(s.seat_colours.tolist()) == [0, 1, 2, 3]
    assert int(s.heights.sum()) == 64


def test_strategic_positioning_alternates_and_the_second_placer_moves_first():
    game = SkyScrapersGame(board="square", rows=2, cols=3, positioning="strategic")
    s = game.new_initial_state(np.random.default_rng(0))
    assert s.phase == "place" and s.current_player == 0
    assert set(s.legal_actions().tolist()) == {8 * 6 + i for i in range(6)}
    order = []
    for cell in (0, 1, 2, 3, 4, 5):
        order.append(s.current_player)
        s.apply(8 * 6 + cell)
    assert order == [0, 1, 0, 1, 0, 1]
    assert s.phase == "move" and s.to_move == 1
    assert s.to_text().splitlines()[:2] == ["a1 b1 a1", "b1 a1 b1"]


def test_strategic_random_first_placer_is_seeded():
    game = SkyScrapersGame(positioning="strategic", first="random")
    firsts = {game.new_initial_state(np.random.default_rng(seed)).current_player for seed in range(10)}
    assert firsts == {0, 1}


def test_random_boards_are_connected_seeded_and_vary():
    from sky_envs.core.boards import is_connected

    game = SkyScrapersGame(board="random", rows=7, cols=9, positioning="random", lines="hex")
    boards = set()
    for seed in range(8):
        a = game.new_initial_state(np.random.default_rng(seed))
        b = game.new_initial_state(np.random.default_rng(seed))
        assert a.to_text() == b.to_text()
        cells = a.board.cells.reshape(7, 9)
        assert is_connected(cells, "hex")
        assert 32 <= cells.sum() <= 63
        boards.add(cells.tobytes())
    assert len(boards) == 8


def test_observation_is_seat_relative():
    s = load("a2 b1 . #\n. a4 b1 b1\n# . a1 .\nto_move: 1", board="square", rows=3, cols=4)
    o0, o1 = s.observation(0), s.observation(1)
    assert o0.shape == (3, 4, 6) and o0.dtype == np.float32
    assert o0[0, 3, 0] == 0 and o0[0, 2, 0] == 1        # hole / cell
    assert o0[1, 1, 1] == 4 and o0[0, 1, 2] == 1        # own a4, opponent b1
    np.testing.assert_array_equal(o0[..., 1], o1[..., 2])
    np.testing.assert_array_equal(o0[..., 2], o1[..., 1])


def test_rules_file_example_round_trips():
    example = "a1 b2 . #\n. a4 b1 b1\n# . a1 .\nto_move: 1"
    s = load(example, board="square", rows=3, cols=4)
    assert s.to_text() == example
    assert s.current_player == 1


def test_every_phase_round_trips_as_text():
    game = SkyScrapersGame(positioning="strategic", board="square", rows=3, cols=3, tiles_per_player=3)
    s = game.new_initial_state(np.random.default_rng(0))
    s.apply(8 * 9 + 4)
    assert "phase: place" in s.to_text()
    assert game.state_from_text(s.to_text()).to_text() == s.to_text()
    choose = SkyScrapersGame(positioning="random").new_initial_state(np.random.default_rng(1))
    assert "phase: choose" in choose.to_text()
    assert choose.game.state_from_text(choose.to_text()).to_text() == choose.to_text()
    dealt = SkyScrapersGame(positioning="random", players=4).new_initial_state(np.random.default_rng(2))
    again = dealt.game.state_from_text(dealt.to_text())
    assert again.to_text() == dealt.to_text() and again.seat_colours.tolist() == dealt.seat_colours.tolist()


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(board="hexagon"), "board='hexagon' is not valid"),
        (dict(players=3), "players=3 is not valid"),
        (dict(lines="diagonal"), "lines='diagonal'"),
        (dict(positioning="chaos"), "positioning='chaos'"),
        (dict(board="square", rows=3, cols=3), "unequal tile counts"),
        (dict(board="random"), "needs a fixed board"),
        (dict(board="square", rows=2, cols=2, positioning="random", tiles_per_player=3), "too small"),
        (dict(tiles_per_player=5), "fills every cell"),
        (dict(board="..#/###/#.."), "not connected"),
        (dict(board="..x/..."), "board='..x/...' is not valid"),
        (dict(board="standard", rows=5), "use board='square'"),
        (dict(first="random"), "strategic' only"),
        (dict(board="random", positioning="random", cells=(1, 99)), "cells="),
        (dict(skyscraper_height=1), "skyscraper_height"),
        (dict(max_turns=0), "max_turns"),
    ],
)
def test_bad_options_raise_at_construction(options, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        SkyScrapersGame(**options)


@pytest.mark.parametrize(
    "text, message",
    [
        ("a1 b1\nb1 a1", "2 board rows but this env's board box is 6 rows x 6 cols"),
        ("a1 b1 a1 b1 a1\n" * 6, "line 1: 5 tokens"),
        ("a1 b1 a1 b1 a1 b1\n" * 5 + "a1 b1 z1 b1 a1 b1", "line 6: token 3 'z1'"),
        ("a1 b1 a1 b1 a1 b1\n" * 5 + "a1 b1 c1 b1 a1 b1", "token 3 'c1'"),
        ("a1 b1 a1 b1 a1 b0\n" * 6, "token 6 'b0'"),
        ("a1 b1 a1 b1 a1 b1\n" * 6 + "to_move: 2", "to_move must be in 0..1"),
        ("a1 b1 a1 b1 a1 b1\n" * 6 + "turn: 2", "unknown field 'turn'"),
    ],
)
def test_bad_position_text_names_the_line(text, message):
    env = sky_envs.make("sky_scrapers_v0")
    with pytest.raises(ValueError, match=message):
        env.reset(options={"position": text})


def test_illegal_action_message_says_what_and_why():
    env = sky_envs.make_raw("sky_scrapers_v0", board="square", rows=1, cols=5, positioning="random")
    env.reset(options={"position": "a2 . . a1 b1"})
    with pytest.raises(ValueError, match=r"action 2 \(move the stack on a1 E\) is illegal for player_0: .*empty"):
        env.step(2)
    with pytest.raises(ValueError, match="not yours"):
        env.step(4 * 8 + W)


# ------------------------------------------------------------ audit: bad input at construction
@pytest.mark.parametrize(
    "options, message",
    [
        # fewer cells than seats: a seat would get 0 tiles (strategic placement used to hang)
        (dict(board="square", rows=1, cols=1, positioning="strategic"), "too small"),
        (dict(board=".", positioning="random"), "too small"),
        (dict(board="square", rows=1, cols=3, players=4, positioning="random"), "too small"),
        # a random board's box smaller than the seat count used to fail only at reset
        (dict(board="random", rows=1, cols=1, positioning="random"), "too small"),
        (dict(board="random", rows=1, cols=3, players=4, positioning="strategic"), "too small"),
        # wrong types are ValueErrors at construction, not TypeErrors or silent truncation
        (dict(players=2.0), "players=2.0 is not valid"),
        (dict(board="random", positioning="random", cells=(10.5, 20)), "cells"),
        (dict(colour="a"), "unknown option 'colour'"),
    ],
)
def test_audit_bad_options_raise_value_error_at_construction(options, message):
    with pytest.raises(ValueError, match=message):
        SkyScrapersGame(**options)


def test_audit_unknown_option_through_make_is_a_value_error():
    with pytest.raises(ValueError, match="unknown option 'foo'"):
        sky_envs.make("sky_scrapers_v0", foo=1)


def test_audit_mask_rows_may_end_with_windows_newlines():
    game = SkyScrapersGame(board="..#\r\n...", positioning="random")
    assert (game.rows, game.cols) == (2, 3)
    assert game.fixed_cells.tolist() == [[True, True, False], [True, True, True]]


def test_audit_numpy_integer_options_are_accepted():
    game = SkyScrapersGame(players=np.int64(4), board="random", positioning="random",
                           rows=np.int64(4), cols=4, cells=(np.int64(8), 12))
    assert game.num_players == 4 and game.cell_range == (8, 12)
    state = game.new_initial_state(np.random.default_rng(0))
    assert state.num_players == 4


def test_positions_with_more_tiles_than_cells_are_refused():
    # every tile starts on its own cell and none leaves: 21 tiles never stand on 4 cells
    with pytest.raises(ValueError, match=r"the height of token 1 must be in 1..4 .*one tile per board cell.*got 9"):
        load("a9 . b12 .", board="square", rows=1, cols=4)
    with pytest.raises(ValueError, match="5 tiles on a board of 4 cells"):
        load("a3 . b2 .", board="square", rows=1, cols=4)
    assert load("a3 . b1 .", board="square", rows=1, cols=4).to_text().splitlines()[0] == "a3 . b1 ."
