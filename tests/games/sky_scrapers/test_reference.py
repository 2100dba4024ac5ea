"""Differential test: the engine against a deliberately naive reading of the rules.

The reference below works on the position text alone, walks every move cell by cell and
scores the end with plain Python; the engine must agree on the legal moves, the resulting
positions, who moves next and the final rewards, on many random positions and boards.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sky_envs.games.sky_scrapers import SkyScrapersGame

STEPS = {"all": [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)],
         "orthogonal": [(-1, 0), None, (0, 1), None, (1, 0), None, (0, -1), None],
         "hex": [(-1, 0), (-1, 1), (0, 1), None, (1, 0), (1, -1), (0, -1), None]}


def parse(text):
    rows = [line.split() for line in text.splitlines() if ":" not in line]
    to_move = int(text.splitlines()[-1].split(":")[1])
    return rows, to_move


def reference_moves(rows, colour, lines):
    out = set()
    R, C = len(rows), len(rows[0])
    for r in range(R):
        for c in range(C):
            token = rows[r][c]
            if token in "#." or token[0] != "abcd"[colour]:
                continue
            h = int(token[1:])
            for d, step in enumerate(STEPS[lines]):
                if step is None:
                    continue
                rr, cc, ok = r, c, True
                for _ in range(h):
                    rr, cc = rr + step[0], cc + step[1]
                    if not (0 <= rr < R and 0 <= cc < C) or rows[rr][cc] == "#":
                        ok = False
                        break
                if ok and rows[rr][cc] != ".":
                    out.add(((r * C + c) * 8 + d, rr, cc))
    return out


def reference_winners(rows, players, tall=4):
    counts, tallest = [0] * players, [0] * players
    for token in (t for row in rows for t in row if t not in "#."):
        h, seat = int(token[1:]), "abcd".index(token[0])
        if h >= tall:
            counts[seat] += 1
            tallest[seat] = max(tallest[seat], h)
    if max(counts) == 0:
        return list(range(players))
    best = max(zip(counts, tallest))
    return [s for s in range(players) if (counts[s], tallest[s]) == best]


@st.composite
def positions(draw):
    players = draw(st.sampled_from([2, 4]))
    lines = draw(st.sampled_from(["all", "orthogonal", "hex"]))
    R = draw(st.integers(1, 6))
    C = draw(st.integers(players if R == 1 else 2, 7))  # an env needs a cell per seat at least
    rows = []
    for _ in range(R):
        row = []
        for _ in range(C):
            kind = draw(st.integers(0, 9))
            if kind == 0:
                row.append("#")
            elif kind <= 3:
                row.append(".")
            else:
                row.append("abcd"[draw(st.integers(0, players - 1))] + str(draw(st.integers(1, 4))))
        rows.append(row)
    if all(t == "#" for row in rows for t in row):  # a position needs a board cell
        rows[0][0] = "a1"
    # a reachable position: every tile starts on its own cell, so the tiles fit on the cells
    cells = sum(t != "#" for row in rows for t in row)
    stacks = sorted(((int(t[1:]), r, c) for r, row in enumerate(rows) for c, t in enumerate(row) if t[1:]), reverse=True)
    excess = sum(h for h, _, _ in stacks) - cells
    for h, r, c in stacks:
        cut = min(h - 1, max(excess, 0))
        rows[r][c] = rows[r][c][0] + str(h - cut)
        excess -= cut
    to_move = draw(st.integers(0, players - 1))
    text = "\n".join(" ".join(row) for row in rows) + f"\nto_move: {to_move}"
    return players, lines, R, C, text, draw(st.integers(0, 2**31))


@settings(max_examples=300, deadline=None)
@given(positions())
def test_engine_agrees_with_the_naive_reference(case):
    players, lines, R, C, text, seed = case
    game = SkyScrapersGame(board="square", rows=R, cols=C, lines=lines, players=players, positioning="random")
    state = game.state_from_text(text)
    rng = np.random.default_rng(seed)
    rows, to_move = parse(text)
    for _ in range(60):
        # who moves: to_move, or the first seat after it with a move
        expected_seat = next((s % players for s in range(to_move, to_move + players)
                              if reference_moves(rows, s % players, lines)), -1)
        assert state.current_player == expected_seat, state.to_text()
        if expected_seat < 0:
            assert state.is_terminal()
            winners = reference_winners(rows, players)
            expected = [0.0] * players if len(winners) == players else [1.0 if s in winners else -1.0 for s in range(players)]
            assert state.returns().tolist() == expected
            return
        moves = reference_moves(rows, expected_seat, lines)
        assert set(state.legal_actions().tolist()) == {a for a, _, _ in moves}
        action, rr, cc = sorted(moves)[rng.integers(len(moves))]
        origin = action // 8
        r, c = divmod(origin, C)
        moved = rows[r][c]
        target = rows[rr][cc]
        rows[rr][cc] = moved[0] + str(int(moved[1:]) + int(target[1:]))
        rows[r][c] = "."
        state.apply(action)
        to_move = (expected_seat + 1) % players
        assert state.to_text().splitlines()[:R] == [" ".join(row) for row in rows]
