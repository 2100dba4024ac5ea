"""The optional heuristic hooks of the State protocol (``Game.heuristic``): the greedy and
alpha-beta agents and greedy playouts judge positions by the game's own hooks, shown on the
third-party Nim of ``tests/tiny_game.py`` (registered from outside), and the defaults serve a
game that defines none."""

import numpy as np
import pytest

import sky_envs
from sky_envs.agents import AlphaBetaAgent, GreedyAgent
from sky_envs.agents.playouts import greedy_playouts, playout_error
from sky_envs.core.state import Heuristic
from tests.tiny_game import NimGame, NimHeuristic

sky_envs.register("tiny_nim_v0", NimGame, overwrite=True)


def position(stones, to_move=0, **options):
    return sky_envs.make_game("tiny_nim_v0", **options).state_from_text(f"stones: {stones}\nto_move: {to_move}")


def best_move(stones):
    """Nim's winning move: leave the opponent a multiple of 3 (take 1 or 2 stones)."""
    return stones % 3 - 1


@pytest.mark.parametrize("stones", [1, 2, 4, 5, 7])
def test_greedy_plays_nims_winning_move_by_the_games_move_values(stones, monkeypatch):
    state = position(stones)
    calls = []
    hooks = state.game.heuristic

    def recording(states):
        calls.append(len(states))
        return NimHeuristic.move_values(hooks, states)

    monkeypatch.setattr(hooks, "move_values", recording)
    moves = {GreedyAgent(seed=seed).act_many([state])[0] for seed in range(8)}
    assert moves == {best_move(stones)} and calls == [1] * 8


def test_greedy_without_move_values_plays_on_clones_judged_by_value():
    """Three seats: the move values cover nothing, so each action is played on a clone and
    judged by value(); the defaults of a game without hooks judge by the score lead (Nim
    reports no scores: every move is worth 0)."""
    state = position(5, players=3)
    assert state.game.heuristic.move_values([state]) == [None]
    assert GreedyAgent(seed=0).act(None, state) in (0, 1)
    assert Heuristic().value(state, 0) == 0.0 and Heuristic().move_values([state]) is None


def test_move_values_are_exactly_the_played_values():
    for stones in range(1, 8):
        for max_turns in (1, 100):
            state = position(stones, max_turns=max_turns)
            fast, = state.game.heuristic.move_values([state])
            assert np.array_equal(fast, GreedyAgent.played_values(state, 0, state.legal_actions()))


class Contrary(NimHeuristic):
    """Judges search leaves the wrong way round: shows alpha-beta reads search_value."""

    def search_value(self, state, seat):
        return -self.value(state, seat)


class ContraryNim(NimGame):
    heuristic = Contrary()


@pytest.mark.parametrize("stones", [4, 5, 7])
def test_alphabeta_judges_its_leaves_by_search_value(stones):
    state = position(stones)
    assert AlphaBetaAgent(depth=1).best_actions(state)[0] == [best_move(stones)]
    assert AlphaBetaAgent(depth=3).best_actions(state)[0] == [best_move(stones)]
    contrary = ContraryNim().state_from_text(state.to_text())
    assert AlphaBetaAgent(depth=1).best_actions(contrary)[0] == [1 - best_move(stones)]
    assert GreedyAgent(seed=0).act(None, contrary) == best_move(stones)  # greedy reads value


def test_greedy_playouts_need_move_values():
    assert playout_error("greedy", sky_envs.make_game("tiny_nim_v0")) is None
    returns, = greedy_playouts([position(7)], np.random.default_rng(0), epsilon=0.0)
    assert returns.tolist() == [1.0, -1.0]  # seat 0 to move from 7 wins with best play
    assert "its heuristic has no move_values" in playout_error("greedy", sky_envs.make_game("sky_towers_v0"))
