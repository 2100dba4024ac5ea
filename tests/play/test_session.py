"""PlaySession and HumanAgent: the one path the terminal and web front ends drive."""

from __future__ import annotations

import numpy as np
import pytest

import sky_envs
from sky_envs.agents.human import HumanAgent
from sky_envs.core.registry import make_game
from sky_envs.core.state import IllegalActionError
from sky_envs.play import PlaySession
from training.tournament import play_game

BUILTIN = [env_id for env_id in sky_envs.env_ids() if not env_id.startswith("tiny_")]


@pytest.mark.parametrize("env_id", BUILTIN)
def test_a_human_plays_a_whole_game_with_undo(env_id):
    session = PlaySession(env_id, opponent="random", human_seats=[0], seed=5)
    session.advance()
    undone = False
    while not session.is_over:
        assert session.human_to_move and session.current_seat == 0
        moves = session.legal_moves()
        assert [a for a, _ in moves] == sorted(a for a, _ in moves)
        before = session.position_text()
        action, text = moves[len(moves) // 2]
        move = session.play(text)
        assert (move.seat, move.action, move.text, move.by) == (0, action, text, "human")
        answers = session.advance()
        assert all(m.by == "random" and m.seat != 0 for m in answers)
        if not undone and not session.is_over:
            assert session.undo() and session.position_text() == before
            assert session.human_to_move
            undone = True
            session.play(text)
            session.advance()
    assert session.current_seat == -1 and session.result()
    assert len(session.scores) == session.num_players


@pytest.mark.parametrize("env_id", BUILTIN)
def test_mistyped_and_illegal_moves_leave_the_game_unchanged(env_id):
    session = PlaySession(env_id, opponent="random", human_seats=range(make_game(env_id).num_players), seed=2)
    before, count = session.position_text(), len(session.moves)
    with pytest.raises(ValueError, match="notation|not a move|expected"):
        session.play("xyzzy 99")
    illegal = np.flatnonzero(~session.state.legal_mask())
    with pytest.raises(IllegalActionError):
        session.play(int(illegal[0]))
    assert session.position_text() == before and len(session.moves) == count


def test_hot_seat_and_agents_take_turns_in_order():
    session = PlaySession("sky_scrapers_v0", {"players": 4}, opponent="greedy", human_seats=[1, 2], seed=1)
    assert [m.seat for m in session.advance(limit=1)] == [0] and session.human_to_move   # player_0 moves first
    assert session.advance() == []
    for _ in range(6):
        if session.is_over:
            break
        seat = session.current_seat
        assert seat in (1, 2)
        session.play(session.legal_moves()[0][1])
        for move in session.advance():
            assert move.seat in (0, 3) and move.by == "greedy"
    with pytest.raises(ValueError, match="human seats"):
        PlaySession("scala_v0", human_seats=[2])


def test_hint_is_the_opponents_choice_and_positions_save_and_load():
    session = PlaySession("scala_v0", opponent="greedy", seed=0)
    action, text = session.hint()
    assert (action, text) in session.legal_moves()
    session.play(text)
    session.advance()
    saved = session.position_text()
    other = PlaySession("scala_v0", opponent="random", position=saved)
    assert other.position_text() == saved and other.moves == [] and not other.undo()
    with pytest.raises(ValueError):
        other.load_position("not a position")
    assert other.position_text() == saved


def test_play_refuses_moves_when_it_is_not_a_humans_turn_or_over():
    session = PlaySession("scala_v0", opponent="random", human_seats=[1], seed=0)
    with pytest.raises(ValueError, match="not by a human"):
        session.play("e5-d4")
    session.advance()
    assert session.human_to_move


def test_human_agent_plays_a_tournament_game_and_retries_after_bad_answers():
    game = make_game("scala_v0")
    told = []

    def ask(state):
        if len(told) < 2:
            return ["nonsense", 0][len(told)]      # a mistyped then an illegal answer
        return state.action_to_string(int(state.legal_actions()[0]))

    human = HumanAgent(ask, tell=told.append)
    from sky_envs.agents import RandomAgent

    rewards = play_game(game, [human, RandomAgent()], seed=3)
    assert len(rewards) == 2 and len(told) == 2
    assert "is not a move" in told[0] and "illegal" in told[1]


def test_human_agent_gives_up_when_its_script_keeps_failing():
    state = make_game("scala_v0").new_initial_state(np.random.default_rng(0))
    human = HumanAgent(lambda s: "nonsense", tell=lambda m: None, max_tries=3)
    with pytest.raises(ValueError, match="nonsense"):
        human.act({}, state)


def test_a_human_agent_is_an_opponent_in_the_single_agent_view():
    from sky_envs.gym_env import SingleAgentEnv

    asked = []

    def ask(state):
        asked.append(state.current_player)
        return state.action_to_string(int(state.legal_actions()[-1]))

    env = SingleAgentEnv("scala_v0", opponent=HumanAgent(ask), seat=0)
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert asked and set(asked) == {1}
