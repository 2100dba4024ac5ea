"""Scala's heuristic, computed from bit masks and cached, equals its plain definition."""

import numpy as np
import pytest

import sky_envs
from sky_envs.agents.baselines import GreedyAgent
from sky_envs.games.scala import heuristic as heuristics
from sky_envs.games.scala.board import CELL_RC


def plain_scala(state, seat):
    """The definition: each side's stones' progress in rows (Blue's rows count up from 1,
    Red's down from 14); the leaders' difference plus a twentieth of the average's."""
    def progress(colour):
        rows = [CELL_RC[i][0] for i in range(len(CELL_RC)) if state.stones[colour] >> i & 1]
        return [row if colour == 0 else 15 - row for row in rows] or [0]

    own, other = progress(seat), progress(1 - seat)
    return max(own) - max(other) + 0.05 * (sum(own) - sum(other)) / 14


def test_scala_heuristic_is_its_definition_exactly():
    game = sky_envs.make_game("scala_v0")
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(20):
        state = game.new_initial_state(rng)
        while state.current_player >= 0:
            for seat in (0, 1):
                assert heuristics.scala(state, seat) == plain_scala(state, seat)
                assert heuristics.scala_with_material(state, seat) == plain_scala(state, seat) + (
                    bin(state.stones[seat]).count("1") - bin(state.stones[1 - seat]).count("1"))
                compared += 1
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(legal.size)]))
    assert compared > 500
    assert heuristics._scala_progress(0, 0) == heuristics._scala_progress(0, 1) == (0, 0)  # no stones left


def test_the_progress_cache_stays_bounded(monkeypatch):
    monkeypatch.setattr(heuristics, "_SCALA_PROGRESS_KEPT", 8)
    heuristics._SCALA_PROGRESS.clear()
    for stones in range(1, 40):
        heuristics._scala_progress(stones, 0)
    assert len(heuristics._SCALA_PROGRESS) <= 8
    heuristics._SCALA_PROGRESS.clear()


@pytest.mark.parametrize("options", [{"split_rule": "mover_loses"}, {"split_rule": "illegal"},
                                     {"split_rule": "mover_loses", "max_turns": 12}])
def test_move_values_are_exactly_the_played_values(options):
    """The compiled one-ply values of every legal move equal a clone per move judged by
    played_value, to the last bit: wins, losses by the split rule, the max_turns cut, and
    moves that leave the opponent without a legal move included."""
    game = sky_envs.make_game("scala_v0", **options)
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(12):
        state = game.new_initial_state(rng)
        while state.current_player >= 0:
            fast, = game.heuristic.move_values([state])
            slow = GreedyAgent.played_values(state, state.current_player, state.legal_actions())
            assert np.array_equal(fast, slow)
            seen.update(np.sign(slow).tolist() if np.abs(slow).max() >= 1000 else [])
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(legal.size)]))
    assert seen  # some positions had a move that wins or loses at once


def test_a_ply_played_for_its_outcome_alone_ends_the_game_as_one_that_lists_the_moves():
    """The greedy player's one-ply values play each move with ``write_moves=False`` (the
    other side's moves not listed where one of its stones can step): the same outcomes as
    the engine's ply, in both split rules, over positions where the other side is blocked
    too (a game's late plies)."""
    from sky_envs.games.scala.kernels import NUM_CELLS, move_work, play_ply

    outcomes = {0: 0, 1: 0}
    rng = np.random.default_rng(5)
    for rule in ("mover_loses", "illegal"):
        game = sky_envs.make_game("scala_v0", split_rule=rule)
        positions = []
        while len(positions) < 150:                # every position of random games, to their ends
            state = game.new_initial_state(rng)
            while state.current_player >= 0:
                positions.append(state.clone())
                state.apply(int(rng.choice(state.legal_actions())))
        for state in positions:
            for action in state.legal_actions():
                played = []
                for write in (True, False):
                    stones = np.array(state._halves, dtype=np.int64)
                    mask = np.zeros(NUM_CELLS * NUM_CELLS, dtype=bool)
                    played.append(play_ply(stones, state.current_player, action, state.connected, state.plies + 1,
                                           rule == "mover_loses", game.max_turns, mask,
                                           np.empty(NUM_CELLS * NUM_CELLS, dtype=np.int64),
                                           np.empty(2 * NUM_CELLS, dtype=np.int64), move_work(), write)
                                  + (tuple(stones),))
                    assert played[-1] == played[0]
                outcomes[played[0][1] == 1] += 1
    assert outcomes[True] > 10 and outcomes[False] > 1000   # games won by a ply among them
