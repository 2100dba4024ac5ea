"""Differential test of both modes against a deliberately naive reading of the rules.

The reference below works on the position text alone: it parses it into plain lists, checks
every action of the layout sentence by sentence, decides the 2-seat end by brute force over
every way the open stands could still close, and scores Golden Rush by counting. The engine
must agree on the legal actions, the texts after every action, who decides next, the rewards
and the observations, on many random positions (reachable or not) and random games.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sky_envs.games.highrise_heist import GoldenRushGame, HighriseHeistGame

H = 11


@dataclass
class Pos:
    stands: list
    turn: int
    phase: str
    flag: int
    queue: list | None  # None in the 2-seat game

    @property
    def four(self):
        return self.queue is not None

    @property
    def seats(self):
        return 4 if self.four else 2

    @property
    def size(self):
        return len(self.stands)


LETTERS = {False: "br", True: "0123"}


def parse(text: str, four: bool) -> Pos:
    lines = text.splitlines()
    S = 9 if four else 10
    stands = [[] if line == "-" else [LETTERS[four].index(ch) for ch in line] for line in lines[:S]]
    fields = dict(line.split(":", 1) for line in lines[S:])
    queue = [int(x) for x in fields["queue"].split()] if four else None
    return Pos(stands, int(fields["turn"]), fields["phase"].strip(), int(fields.get("closed_this_turn", "0")), queue)


def write(p: Pos) -> str:
    lines = ["".join(LETTERS[p.four][c] for c in s) or "-" for s in p.stands]
    lines += [f"to_move: {p.turn % p.seats}", f"phase: {p.phase}", f"turn: {p.turn}", f"closed_this_turn: {p.flag}"]
    if p.four:
        lines.append(("queue: " + " ".join(map(str, p.queue))).rstrip())
    return "\n".join(lines)


def closed(p, s):
    return len(p.stands[s]) == H


def capacity(p, s):
    if s == 0:
        return 11 if p.queue else 10
    if s % 2 == 1:
        return 11
    return 11 if closed(p, s - 1) else 10


def placement_list(S):
    out = [{s: k} for s in range(S) for k in (1, 2, 3)]
    for s in range(S):
        for t in range(s + 1, S):
            out += [{s: 1, t: 1}, {s: 1, t: 2}, {s: 2, t: 1}]
    return out


def two_seat_result(p):
    """The winner if every way of closing the open stands gives the same one, else None."""
    counts = [0, 0]
    for s in range(10):
        if closed(p, s):
            counts[p.stands[s][-1]] += 1
    golden = p.stands[0][-1] if closed(p, 0) else None
    opens = [s for s in range(10) if not closed(p, s)]
    results = set()
    for owners in itertools.product((0, 1), repeat=len(opens)):
        c, g = counts[:], golden
        for s, who in zip(opens, owners):
            c[who] += 1
            if s == 0:
                g = who
        results.add(0 if c[0] > c[1] else 1 if c[1] > c[0] else g)
    return results.pop() if len(results) == 1 else None


def finished(p):
    if p.four:
        return all(closed(p, s) for s in range(9))
    return two_seat_result(p) is not None


def placement_ok(p, placement):
    if not p.four and p.turn == 0 and sum(placement.values()) > 1:
        return False
    open_count = sum(not closed(p, s) for s in range(p.size))
    closes = 0
    for s, k in placement.items():
        if closed(p, s):
            return False
        new = len(p.stands[s]) + k
        if p.four:
            if new > capacity(p, s):
                return False
        elif new > (11 if open_count <= 2 and not p.flag else 10):
            return False
        closes += new == H
    return p.four or closes <= 1


def legal(p, max_turns):
    if finished(p) or p.turn >= max_turns:
        return set()
    S = p.size
    mover = p.turn % p.seats
    acts = set()
    if p.phase == "transfer":
        acts.add(S * S)
        if not p.four and p.turn == 1:
            acts.add(266)
        for a, b in itertools.permutations(range(S), 2):
            src, dst = p.stands[a], p.stands[b]
            if not src or closed(p, a) or closed(p, b):
                continue
            colour = src[-1]
            n = len(src) - next((i + 1 for i in range(len(src) - 1, -1, -1) if src[i] != colour), 0)
            if dst and dst[-1] != colour:
                continue
            new = len(dst) + n
            if p.four and new > capacity(p, b):
                continue
            if not p.four and new >= H and colour != mover:
                continue
            acts.add(a * S + b)
    else:
        for i, placement in enumerate(placement_list(S)):
            if placement_ok(p, placement):
                acts.add(S * S + 1 + i)
    return acts


def update_queue(p):
    if p.four:
        for seat in range(4):
            if seat not in p.queue and closed(p, 2 * seat + 1) and closed(p, 2 * seat + 2):
                p.queue.append(seat)


def end_turn(p):
    p.turn += 1
    p.phase = "transfer"
    p.flag = 0


def settle(p, max_turns):
    """Skip a placement phase that has no legal placement (the engine never asks for one)."""
    while not finished(p) and p.turn < max_turns and p.phase == "place" and not legal(p, max_turns):
        end_turn(p)
    return p


def step(p, action, max_turns):
    p = copy.deepcopy(p)
    S = p.size
    mover = p.turn % p.seats
    if p.phase == "transfer":
        if not p.four and action == 266:
            p.stands = [[1 - c for c in s] for s in p.stands]
            end_turn(p)
            return settle(p, max_turns)
        if action < S * S:
            a, b = divmod(action, S)
            src = p.stands[a]
            colour = src[-1]
            group = []
            while src and src[-1] == colour:
                group.append(src.pop())
            p.stands[b] = (p.stands[b] + group)[-H:]   # any excess leaves from the bottom
            if len(p.stands[b]) == H:
                p.flag = 1
                update_queue(p)
        p.phase = "place"
        return settle(p, max_turns)
    for s, k in placement_list(S)[action - S * S - 1].items():
        p.stands[s] = p.stands[s] + [mover] * k
    update_queue(p)
    end_turn(p)
    return settle(p, max_turns)


def scores(p, teams):
    out = [0] * 4
    for s, column in enumerate(p.stands):
        for colour in column:
            out[colour] += 1
        if closed(p, s):
            if s == 0:
                out[p.queue[0]] += 15
            else:
                out[column[-1]] += 5 if s % 2 else 8
    if teams:
        for team in ((0, 2), (1, 3)):
            if all(closed(p, 2 * m + 1) and closed(p, 2 * m + 2) for m in team):
                for m in team:
                    out[m] += 5
    return out


def returns(p, game):
    if not finished(p):
        return [0.0] * p.seats
    if not p.four:
        w = two_seat_result(p)
        return [1.0 if seat == w else -1.0 for seat in (0, 1)]
    sc = scores(p, game.mode == "teams")
    values = [sc[0] + sc[2], sc[1] + sc[3]] * 2 if game.mode == "teams" else sc
    if game.reward == "score":
        mean = sum(values) / 4
        return [(v - mean) / 100 for v in values]
    best = max(values)
    if values.count(best) == 4:
        return [0.0] * 4
    return [1.0 if v == best else -1.0 for v in values]


# ------------------------------------------------------------------ observations

def observation(p, seat, game, current):
    S = p.size
    P = p.seats
    C = 26 if p.four else 14
    obs = np.zeros((S, H, C), np.float32)
    open_count = sum(not closed(p, s) for s in range(S))
    for s, col in enumerate(p.stands):
        h = len(col)
        run = 0
        while run < h and col[h - 1 - run] == col[-1]:
            run += 1
        top = 4 if p.four else 2
        for level, colour in enumerate(col):
            obs[s, level, (colour - seat) % P] = 1
            if level >= h - run:
                obs[s, level, top] = 1
        limit = capacity(p, s) if p.four else (11 if open_count <= 2 and not p.flag else 10)
        for level in range(h, limit):
            obs[s, level, top + 1] = 1
        if p.four:
            obs[s, :, 6] = s == 0
            if s:
                obs[s, :, 7 if s % 2 else 8] = 1
                obs[s, :, 9 + ((s - 1) // 2 - seat) % 4] = 1
            if closed(p, s):
                owner = p.queue[0] if s == 0 else col[-1]
                obs[s, :, 13] = 1
                obs[s, :, 14 + (owner - seat) % 4] = 1
        else:
            obs[s, :, 4] = s == 0
            if closed(p, s):
                obs[s, :, 5] = 1
                obs[s, :, 6 if col[-1] == seat else 7] = 1
    progress = min(1, p.turn / game.max_turns)
    if p.four:
        for rank, q in enumerate(p.queue):
            obs[:, :, 18 + (q - seat) % 4] = 1 - 0.25 * rank
        obs[:, :, 22] = current == seat
        obs[:, :, 23] = p.phase == "place"
        obs[:, :, 24] = game.mode == "teams"
        obs[:, :, 25] = progress
    else:
        obs[:, :, 8] = current == seat
        obs[:, :, 9] = p.phase == "place"
        obs[:, :, 10] = p.turn == 0
        obs[:, :, 11] = p.turn == 1 and p.phase == "transfer"
        obs[:, :, 12] = p.flag
        obs[:, :, 13] = progress
    return obs


# ------------------------------------------------------------------ random positions

def random_column(rng, height, colours):
    column, colour = [], int(rng.integers(colours))
    for _ in range(height):
        if rng.random() < 0.35:
            colour = int(rng.integers(colours))
        column.append(colour)
    return column


def random_height(rng, full, allow_full=True):
    if allow_full and rng.random() < full:
        return H
    return int(rng.choice([rng.integers(0, 11), rng.integers(7, 11)]))


def random_position(rng, four: bool, max_turns: int = 200) -> str:
    full = rng.random()
    if four:
        stands = [None] * 9
        for seat in range(4):
            near = random_height(rng, full)
            stands[2 * seat + 1] = random_column(rng, near, 4)
            stands[2 * seat + 2] = random_column(rng, random_height(rng, full, near == H), 4)
        eligible = [seat for seat in range(4) if len(stands[2 * seat + 1]) == H == len(stands[2 * seat + 2])]
        queue = [int(x) for x in rng.permutation(eligible)]
        stands[0] = random_column(rng, random_height(rng, full, bool(queue)), 4)
    else:
        stands = [random_column(rng, random_height(rng, full), 2) for _ in range(10)]
        queue = None
    turn = min(int(rng.choice([0, 1, 2, 3, rng.integers(4, 80)])), max_turns)  # reachable: the cut ends a game
    phase = "place" if (not four and turn == 0) or rng.random() < 0.5 else "transfer"
    p = Pos(stands, turn, phase, 0, queue)
    mover = turn % p.seats
    if phase == "place" and (four or turn > 0) and rng.random() < 0.4:
        if any(len(s) == H and (four or s[-1] == mover) for s in stands):
            p.flag = 1
    return write(p)


GAMES = [HighriseHeistGame(), GoldenRushGame(), GoldenRushGame(mode="teams"),
         GoldenRushGame(mode="teams", reward="score"), HighriseHeistGame(max_turns=30)]


def check_against_reference(game, text, rng, steps):
    four = game.num_players == 4
    state = game.state_from_text(text)
    ref = settle(parse(text, four), game.max_turns)
    for _ in range(steps):
        assert state.to_text() == write(ref)
        expected = legal(ref, game.max_turns)
        assert set(state.legal_actions().tolist()) == expected, state.to_text()
        current = ref.turn % ref.seats if expected else -1
        assert state.current_player == current
        assert state.is_terminal() == finished(ref)
        np.testing.assert_allclose(state.returns(), returns(ref, game))
        for seat in range(game.num_players):
            np.testing.assert_array_equal(state.observation(seat), observation(ref, seat, game, current))
        if not expected:
            return
        actions = sorted(expected)
        for action in rng.choice(actions, size=min(6, len(actions)), replace=False):
            twin = state.clone()
            twin.apply(int(action))
            assert twin.to_text() == write(step(ref, int(action), game.max_turns)), (text, int(action))
        action = int(rng.choice(actions))
        state.apply(action)
        ref = step(ref, action, game.max_turns)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, len(GAMES) - 1))
def test_engine_agrees_with_the_reference_on_random_positions(seed, which):
    game = GAMES[which]
    rng = np.random.default_rng(seed)
    check_against_reference(game, random_position(rng, game.num_players == 4, game.max_turns), rng, steps=4)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, len(GAMES) - 1))
def test_engine_agrees_with_the_reference_over_whole_games(seed, which):
    game = GAMES[which]
    rng = np.random.default_rng(seed)
    text = game.new_initial_state(np.random.default_rng(seed)).to_text()
    check_against_reference(game, text, rng, steps=400)


def test_reference_agrees_with_the_rule_explanations():
    """``rule_violation`` (the engine's readable rules) is None exactly for the legal actions."""
    rng = np.random.default_rng(11)
    for game in GAMES[:2]:
        for _ in range(40):
            state = game.state_from_text(random_position(rng, game.num_players == 4, game.max_turns))
            mask = state.legal_mask()
            for action in range(game.num_actions):
                assert (state.rule_violation(action) is None) == bool(mask[action]), (state.to_text(), action)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, len(GAMES) - 1))
def test_engine_agrees_with_the_reference_long(seed, which):
    game = GAMES[which]
    rng = np.random.default_rng(seed)
    check_against_reference(game, random_position(rng, game.num_players == 4, game.max_turns), rng, steps=12)
