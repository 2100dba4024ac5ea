"""Scala against a second, deliberately plain implementation of rules/scala.md.

The reference below works on (row, column) pairs, sets and dicts, with the board copied from
the rules file's diagram, and follows each rule sentence literally (no bitboards, no shared
chain network, no connectivity shortcuts). The engine must agree with it on every legal
move and on the result of every move, on positions from random play and on random
placements of stones, under both split rules.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sky_envs.games.scala import ScalaGame

# the rules file's diagram, row 14 first ('#' no cell, '.' cell, 'G' goal)
DIAGRAM = """
# # # # # G # # # # #
# # # # . . . # # # #
# # # . . . . . # # #
# # . . . . . . . # #
# . . . . . . . . . #
. . . . . . . . . . .
. . . . # # # . . . .
. . . . # # # . . . .
. . . . . . . . . . .
# . . . . . . . . . #
# # . . . . . . . # #
# # # . . . . . # # #
# # # # . . . # # # #
# # # # # G # # # # #
"""
ROWS = [line.split() for line in DIAGRAM.strip().splitlines()]
CELLS = {(14 - i, j) for i, row in enumerate(ROWS) for j, ch in enumerate(row) if ch != "#"}
# numbering of the rules file: from row 1 upward, left to right inside a row
NUMBER = {rc: n for n, rc in enumerate(sorted(CELLS))}
GOAL_ATTACKED = {"O": (14, 5), "X": (1, 5)}
GOAL_DEFENDED = {"O": (1, 5), "X": (14, 5)}
EIGHT = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def parse(text):
    lines = text.strip().splitlines()
    board = {}
    for i, line in enumerate(lines[:14]):
        for j, ch in enumerate(line):
            if ch in "OX":
                board[(14 - i, j)] = ch
    return board, lines[-1].split(":")[1].strip()


def ends(board, start, colour):
    """Steps to empty neighbours plus every end of a chain of jumps (start counts as empty)."""
    def empty(cell):
        return cell in CELLS and (cell not in board or cell == start)

    forbidden = GOAL_DEFENDED[colour]
    out = set()
    r, c = start
    for dr, dc in EIGHT:
        step = (r + dr, c + dc)
        if step in CELLS and step not in board and step != forbidden:
            out.add(step)
    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for dr, dc in EIGHT:
            over, land = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if over in board and over != start and empty(land) and land != forbidden and land not in seen:
                seen.add(land)
                todo.append(land)
                out.add(land)
    out.discard(start)
    return out


def groups(board):
    left, out = set(board), []
    while left:
        todo = [left.pop()]
        group = set(todo)
        while todo:
            r, c = todo.pop()
            for dr, dc in EIGHT:
                n = (r + dr, c + dc)
                if n in left:
                    left.discard(n)
                    group.add(n)
                    todo.append(n)
        out.append(group)
    return out


def play(board, start, end, colour, rule):
    """(board after the move, 'ok' | 'lose' | 'win' | 'illegal')."""
    board = dict(board)
    del board[start]
    board[end] = colour
    parts = groups(board)
    if len(parts) >= 2:
        mixed = [g for g in parts if len({board[x] for x in g}) == 2]
        if not mixed:
            return {}, ("illegal" if rule == "illegal" else "lose")
        biggest = max(len(g) for g in mixed)
        top = [g for g in mixed if len(g) == biggest]
        if len(top) > 1:
            kept = set().union(*top)
            return {x: board[x] for x in kept}, ("illegal" if rule == "illegal" else "lose")
        if rule == "illegal":
            mine = next(g for g in parts if end in g)
            if len({board[x] for x in mine}) == 1:
                return board, "illegal"
            kept = mine
        else:
            kept = top[0]
        board = {x: board[x] for x in kept}
    if board.get(end) == colour and end == GOAL_ATTACKED[colour]:
        return board, "win"
    return board, "ok"


def legal(board, colour, rule):
    out = {}
    for start, who in board.items():
        if who != colour:
            continue
        for end in ends(board, start, colour):
            after, result = play(board, start, end, colour, rule)
            if result != "illegal":
                out[NUMBER[start] * 88 + NUMBER[end]] = (after, result)
    return out


def board_of(state):
    board, _ = parse(state.to_text())
    return board


def check_position(state, rule, rng, moves=6):
    """Masks and move results of the engine against the reference, from ``state``."""
    board, to_move = parse(state.to_text())
    colour = "OX"[state.current_player]
    assert to_move == colour
    expected = legal(board, colour, rule)
    assert set(np.flatnonzero(state.legal_mask()).tolist()) == set(expected)
    actions = sorted(expected)
    for a in rng.choice(actions, size=min(moves, len(actions)), replace=False):
        after, result = expected[int(a)]
        twin = state.clone()
        twin.apply(int(a))
        assert board_of(twin) == after, state.action_to_string(int(a))
        if result == "win":
            assert twin.winner == state.current_player and twin.end == "goal"
        elif result == "lose":
            assert twin.winner == 1 - state.current_player and twin.end == "split"
        else:
            opponent = "XO"[state.current_player]
            if twin.is_truncated():
                continue
            if not legal(after, opponent, rule):
                assert twin.winner == state.current_player and twin.end == "no_move"
            else:
                assert twin.current_player == 1 - state.current_player


def test_reference_board_matches_the_numbering():
    assert len(CELLS) == 88
    names = {n: "abcdefghijk"[c] + str(r) for (r, c), n in NUMBER.items()}
    assert [names[i] for i in range(5)] == ["f1", "e2", "f2", "g2", "d3"]
    assert names[87] == "f14"


@pytest.mark.parametrize("rule", ["mover_loses", "illegal"])
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_agrees_with_the_reference(rule, seed):
    game = ScalaGame(split_rule=rule)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    while state.current_player >= 0:
        check_position(state, rule, rng, moves=3)
        actions = state.legal_actions()
        state.apply(int(rng.choice(actions)))


def random_position(rng):
    cells = sorted(CELLS)
    count = int(rng.integers(2, 29))
    picked = rng.choice(len(cells), size=count, replace=False)
    board = {}
    for k, i in enumerate(picked):
        cell = cells[i]
        colour = "OX"[k % 2] if k < 2 else "OX"[int(rng.integers(2))]
        if cell == GOAL_ATTACKED[colour]:
            continue
        board[cell] = colour
    if sum(v == "O" for v in board.values()) > 14 or sum(v == "X" for v in board.values()) > 14:
        return None
    lines = []
    for i, row in enumerate(ROWS):
        lines.append("".join(board.get((14 - i, j), "." if ch != "#" else "#") for j, ch in enumerate(row)))
    return "\n".join(lines) + f"\nto_move: {'OX'[int(rng.integers(2))]}"


@pytest.mark.parametrize("rule", ["mover_loses", "illegal"])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_placements_agree_with_the_reference(rule, seed):
    rng = np.random.default_rng(seed)
    text = None
    while text is None:
        text = random_position(rng)
    state = ScalaGame(split_rule=rule).state_from_text(text)
    assert state.to_text() == text
    board, to_move = parse(text)
    if state.current_player < 0:   # the side to move has no legal move: it lost
        assert not legal(board, to_move, rule)
        assert state.winner == "OX".index(to_move) ^ 1 and state.end == "no_move"
        return
    for _ in range(4):
        check_position(state, rule, rng, moves=8)
        state.apply(int(rng.choice(state.legal_actions())))
        if state.current_player < 0:
            break


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["mover_loses", "illegal"])
def test_long_reference_campaign(rule):
    rng = np.random.default_rng(2024)
    game = ScalaGame(split_rule=rule)
    for _ in range(150):
        state = game.new_initial_state(rng)
        while state.current_player >= 0:
            check_position(state, rule, rng, moves=4)
            state.apply(int(rng.choice(state.legal_actions())))
    for _ in range(1500):
        text = random_position(rng)
        if text is None:
            continue
        state = game.state_from_text(text)
        if state.current_player >= 0:
            check_position(state, rule, rng, moves=10)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), fill=st.floats(0.05, 0.9))
def test_shared_chain_network_equals_one_search_per_stone(seed, fill):
    """``all_targets`` (the engine's shared jump graph) against ``move_targets`` per stone,
    on dense random boards where chains are long and cross each other."""
    from sky_envs.games.scala.board import cells_of
    from sky_envs.games.scala.rules import all_targets, move_targets

    rng = np.random.default_rng(seed)
    occupied = rng.random(88) < fill
    colours = rng.integers(0, 2, size=88)
    blue = sum(1 << i for i in range(88) if occupied[i] and colours[i] == 0)
    red = sum(1 << i for i in range(88) if occupied[i] and colours[i] == 1)
    for colour, own in ((0, blue), (1, red)):
        expected = {c: move_targets(c, blue | red, colour) for c in cells_of(own)}
        assert all_targets(own, blue | red, colour) == {c: t for c, t in expected.items() if t}
        # and move_targets itself against the plain reference
        board = {rc: "OX"[colours[NUMBER[rc]]] for rc in CELLS if occupied[NUMBER[rc]]}
        for rc, who in board.items():
            if who == "OX"[colour]:
                got = {i for i in cells_of(expected[NUMBER[rc]])}
                assert got == {NUMBER[e] for e in ends(board, rc, who)}
