"""The board part of the play server's API (a real server on an ephemeral port): the scene and
the clickable ways of every legal move in GET /api/state, the last move's things, players
with their colours, the result in words at the end; watching agents play each other; and
the command line's --watch."""

from __future__ import annotations

import pytest

from sky_envs.core.registry import make_game
from sky_envs.play import PlaySession
from sky_envs.play.board import board_view_of
from tests.play.play_web_support import PLAY_ENV_IDS, call, play_move, running_server


@pytest.mark.parametrize("env_id", PLAY_ENV_IDS)
def test_the_state_carries_the_board_and_the_ways_of_every_legal_move(env_id):
    with running_server(env_id, seed=4) as server:
        state = call(server, "GET", "/api/state")[1]
        assert state["mode"] == "play" and state["board"]["items"] and state["last_move_ids"] == []
        assert [m["action"] for m in state["board_moves"]] == [a for a, _ in state["legal_moves"]]
        assert [m["text"] for m in state["board_moves"]] == [t for _, t in state["legal_moves"]]
        ids = {item["id"] for item in state["board"]["items"] if "id" in item}
        assert all(t in ids and (o is None or o in ids) for m in state["board_moves"] for o, t in m["ways"])
        players = state["players"]
        assert [p["name"] for p in players] == [f"player_{s}" for s in range(state["num_players"])]
        assert players[0]["role"] == "you" and players[0]["by"] == "human"
        assert all(p["role"] == "agent" and p["by"] == "random" for p in players[1:])
        assert all(p["colours"] and all(c.startswith("#") for c in p["colours"]) for p in players)

        move = state["board_moves"][-1]
        status, answer = play_move(server, move["action"])
        assert status == 200
        after = answer["state"]
        expected = [i for way in move["ways"] for i in way if i is not None]
        if not answer["replies"]:
            assert after["last_move_ids"] == list(dict.fromkeys(expected))
        else:   # the agents answered: the marks are on their last move
            assert after["last_move_ids"]


def test_the_end_is_explained_in_words():
    with running_server("scala_v0", seed=4) as server:
        state = call(server, "GET", "/api/state")[1]
        assert state["result_words"] == ""
        while not state["is_over"]:
            state = play_move(server, state["legal_moves"][0][0])[1]["state"]
        game_state = make_game("scala_v0").state_from_text(call(server, "GET", "/api/position")[1]["position"])
        assert state["result_words"] == board_view_of(game_state.game).result_words(game_state)
        assert any(f"player_{w}" in state["result_words"] for w in state["info"]["winners"])
        assert "wins" in state["result_words"]


def test_a_watched_game_runs_to_its_end_one_agent_move_a_call():
    with running_server("sky_scrapers_v0", {"board": "square", "rows": 3, "cols": 4}, opponent=["random", "greedy"],
                        human_seats=(), seed=3) as server:
        state = call(server, "GET", "/api/state")[1]
        assert state["mode"] == "watch" and state["human_seats"] == [] and state["agent_to_move"]
        assert [p["by"] for p in state["players"]] == ["random", "greedy"]
        assert call(server, "POST", "/api/move", {"move": 0})[0] == 409
        assert call(server, "POST", "/api/hint", {})[0] == 409
        moves = 0
        while not state["is_over"]:
            status, answer, _ = call(server, "POST", "/api/advance", {})
            assert status == 200 and len(answer["replies"]) == 1
            assert answer["replies"][0]["by"] == ["random", "greedy"][answer["replies"][0]["seat"]]
            state = answer["state"]
            moves += 1
            assert state["last_move_ids"] and state["legal_moves"] == [] and state["board_moves"] == []
        assert moves == len(state["moves"]) > 0 and state["result_words"]
        assert call(server, "POST", "/api/advance", {})[1]["replies"] == []


def test_hidden_hands_are_drawn_for_the_human_only():
    with running_server("sky_towers_v0", seed=2) as server:
        state = call(server, "GET", "/api/state")[1]
        ids = {item["id"] for item in state["board"]["items"] if "id" in item}
        assert any(i.startswith("p0:hand:") for i in ids) and "p1:hand" in ids
        assert not any(i.startswith("p1:hand:") for i in ids)


def test_a_session_of_agents_needs_one_spec_per_agent_seat():
    with pytest.raises(ValueError, match="one spec per such seat"):
        PlaySession("scala_v0", opponent=["random"], human_seats=())
    session = PlaySession("golden_rush_v0", opponent=["random", "greedy", "random"], human_seats=(2,), seed=1)
    assert session.seat_names == ["random", "greedy", "human", "random"]
    assert session.agents[1] is not session.agents[0] and not session.watching


def test_watch_on_the_command_line(capsys):
    from sky_envs.play.__main__ import main, watch_specs

    assert watch_specs(["greedy"], 4) == ["greedy"] * 4
    assert watch_specs(["a", "b"], 2) == ["a", "b"]
    for argv, message in ((["--env", "scala_v0", "--watch", "random", "greedy"], "add --web"),
                          (["--env", "scala_v0", "--web", "--watch", "random", "--seat", "1"], "leave out --seat"),
                          (["--env", "scala_v0", "--web", "--watch", "random", "greedy", "mcts"], "one per seat"),
                          (["--env", "scala_v0", "--web", "--watch", "random", "--pace", "-1"], "--pace")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        assert message in capsys.readouterr().err
