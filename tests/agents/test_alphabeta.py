"""The alpha-beta baseline: exactly minimax (cuts never change a value or the set of best
moves), turns that do not alternate, agent specs, and its strength at Scala."""

import math

import numpy as np
import pytest

import sky_envs
from sky_envs.agents import AlphaBetaAgent, GreedyAgent, make_agent
from sky_envs.core.state import WIN
from tests.agents.test_search import random_positions

TWO_SEAT = ["scala_v0", "highrise_heist_v0", "sky_scrapers_v0", "skybridge_v0", "sky_towers_v0"]


def minimax(state, seat, depth):
    """Plain minimax over every line, no cuts: the reference."""
    if state.current_player < 0:
        return WIN * float(state.returns()[seat]) if state.is_terminal() else 0.0
    if depth == 0:
        return state.game.heuristic.search_value(state, seat)
    values = []
    for action in state.legal_actions().tolist():
        child = state.clone()
        child.apply(action)
        values.append(minimax(child, seat, depth - 1))
    return max(values) if state.current_player == seat else min(values)


@pytest.mark.parametrize("env_id,depth", [("scala_v0", 2), ("highrise_heist_v0", 2), ("sky_scrapers_v0", 2)])
def test_best_actions_are_exactly_minimaxs(env_id, depth):
    """Highrise Heist's turns are two decisions by one seat (a transfer, then a placement):
    the maximising seat must not alternate with the plies."""
    agent = AlphaBetaAgent(depth=depth, seed=0)
    game = sky_envs.make_game(env_id)
    # positions some plies into random games, each a different number (both of Highrise
    # Heist's phases, early and late)
    for plies in (4, 7, 11, 15, 19, 24):
        (state,) = random_positions(game, 1, plies, seed=depth * 100 + plies)
        seat = state.current_player
        values = {}
        for action in state.legal_actions().tolist():
            child = state.clone()
            child.apply(action)
            values[action] = minimax(child, seat, depth - 1)
        top = max(values.values())
        best, value = agent.best_actions(state)
        assert math.isclose(value, top, abs_tol=1e-6)
        assert sorted(best) == sorted(a for a, v in values.items() if abs(v - top) <= 1e-9)


@pytest.mark.parametrize("env_id", TWO_SEAT)
def test_plays_whole_games_legally(env_id):
    env = sky_envs.make(env_id)
    env.reset(seed=0)
    agents = {"player_0": make_agent("alphabeta@1", seed=0), "player_1": make_agent("random", seed=1)}
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        else:
            action = agents[name].act(observation, env.unwrapped.game_state)
            assert observation["action_mask"][action]
        env.step(action)


def test_specs_and_refusals():
    assert make_agent("alphabeta@3").depth == 3
    assert make_agent("alphabeta").depth == 2
    with pytest.raises(ValueError, match="must be a positive number"):
        make_agent("alphabeta@0")
    with pytest.raises(ValueError, match="depth must be an int >= 1"):
        AlphaBetaAgent(depth=0)
    env = sky_envs.make("golden_rush_v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="two-seat games; this one has 4 seats"):
        AlphaBetaAgent().act(env.last()[0], env.unwrapped.game_state)


def test_scala_alphabeta_sees_the_reply_greedy_does_not():
    """Two plies beat one at Scala: over 6 games with seats alternating, alpha-beta@2 loses
    none to greedy and wins most (the greedy racer's win-or-draw games against networks and
    MCTS; the full figure is in README's Trained agents section)."""
    game = sky_envs.make_game("scala_v0")
    wins = losses = 0
    for g in range(6):
        state = game.new_initial_state(np.random.default_rng(g))
        players = [AlphaBetaAgent(depth=2, seed=g), GreedyAgent(seed=g)]
        me = g % 2
        if me:
            players.reverse()
        while state.current_player >= 0:
            state.apply(players[state.current_player].act({}, state))
        result = state.returns()[me] if state.is_terminal() else 0.0
        wins += result > 0
        losses += result < 0
    assert losses == 0 and wins >= 4, (wins, losses)
