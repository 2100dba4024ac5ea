"""The play server's JSON API, through a real server on an ephemeral port: whole games in
every env, and every kind of malformed or hostile request refused with the game unchanged."""

from __future__ import annotations

import http.client
import io
import json

import numpy as np
import pytest
from PIL import Image

from sky_envs.core.registry import make_game
from sky_envs.play.web import MAX_BODY_BYTES, MAX_MOVE_CHARS
from tests.play.play_web_support import (PLAY_ENV_IDS, call, illegal_move_text, let_agents_move, play_move,
                                         running_server, served_by_command)


def snapshot(server):
    """Everything the API shows about the game: a refused request must change none of it."""
    status, state, _ = call(server, "GET", "/api/state")
    assert status == 200
    status, position, _ = call(server, "GET", "/api/position")
    assert status == 200
    return state, position["position"]


def check_state_matches_position(env_id, state, position):
    """The legal moves and turn the API reports are those of the position text it reports."""
    game_state = make_game(env_id).state_from_text(position)
    assert state["current_seat"] == game_state.current_player
    assert state["is_over"] == (game_state.current_player < 0)
    info = json.loads(json.dumps(game_state.info(), default=lambda v: v.tolist()))
    assert state["info"].keys() == info.keys()
    assert all(state["info"][key] == value for key, value in info.items()   # Scala's ply count is
               if isinstance(value, list) and len(value) == game_state.num_players)   # not in its text
    if state["human_to_move"]:
        assert [a for a, _ in state["legal_moves"]] == [int(a) for a in game_state.legal_actions()]
        assert all(text == game_state.action_to_string(a) for a, text in state["legal_moves"])


def picture_size(server):
    status, png, headers = call(server, "GET", "/api/picture.png")
    assert status == 200 and headers["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.mode == "RGB"
    return image.size


@pytest.mark.parametrize("env_id", PLAY_ENV_IDS)
def test_a_whole_game_through_the_api(env_id):
    rng = np.random.default_rng(7)
    with running_server(env_id, seed=7) as server:
        assert picture_size(server)[0] > 0
        state, position = snapshot(server)
        human_moves = 0
        while not state["is_over"]:
            assert state["human_to_move"] and state["current_seat"] == 0
            check_state_matches_position(env_id, state, position)
            action, text = state["legal_moves"][rng.integers(len(state["legal_moves"]))]
            # alternate the two ways a move can be sent: its notation and its action index
            status, answer = play_move(server, text if human_moves % 2 else action)
            assert status == 200, answer
            assert answer["played"] == {"seat": 0, "action": action, "text": text, "by": "human"}
            assert all(m["seat"] != 0 and m["by"] == "random" for m in answer["replies"])
            moves = answer["state"]["moves"]
            assert moves[len(moves) - len(answer["replies"]) - 1] == answer["played"]
            assert moves[len(moves) - len(answer["replies"]):] == answer["replies"]
            human_moves += 1
            state, position = snapshot(server)
            assert state == answer["state"]
        assert human_moves > 0
        assert state["notation_help"].startswith("### Move notation")
        assert state["result"] and state["current_seat"] == -1 and state["legal_moves"] == []
        assert len(state["scores"]) == state["num_players"]
        assert picture_size(server)[0] > 0
        status, answer, _ = call(server, "POST", "/api/move", {"move": 0})
        assert status == 409 and "over" in answer["error"]
        status, answer, _ = call(server, "POST", "/api/hint", {})
        assert status == 409
        assert call(server, "POST", "/api/undo", {})[0] == 200
        assert snapshot(server)[0]["human_to_move"]


@pytest.mark.parametrize("env_id", PLAY_ENV_IDS)
def test_illegal_and_mistyped_moves_are_refused_in_every_env(env_id):
    with running_server(env_id, seed=3) as server:
        before = snapshot(server)
        status, answer, _ = call(server, "POST", "/api/move", {"move": illegal_move_text(env_id, before[1])})
        assert status == 422 and "illegal" in answer["error"], answer
        status, answer, _ = call(server, "POST", "/api/move", {"move": "xyzzy 99"})
        assert status == 400 and "xyzzy" in answer["error"], answer
        legal = {a for a, _ in before[0]["legal_moves"]}
        illegal_action = next(a for a in range(10_000) if a not in legal)
        status, answer, _ = call(server, "POST", "/api/move", {"move": illegal_action})
        assert status == 422, answer
        assert snapshot(server) == before


def test_hint_undo_new_and_load():
    with running_server("scala_v0", seed=1) as server:
        start_state, start_position = snapshot(server)
        assert call(server, "POST", "/api/undo")[1]["undone"] is False
        status, answer, _ = call(server, "POST", "/api/hint")
        assert status == 200 and answer["hint"] in start_state["legal_moves"]
        assert snapshot(server) == (start_state, start_position)   # a hint plays nothing

        play_move(server, start_state["legal_moves"][0][1])
        after_one = snapshot(server)
        assert len(after_one[0]["moves"]) == 2 and after_one[0]["version"] > start_state["version"]
        status, answer, _ = call(server, "POST", "/api/undo", {})
        assert status == 200 and answer["undone"] is True
        state, position = snapshot(server)
        assert position == start_position and state["moves"] == []

        call(server, "POST", "/api/move", {"move": start_state["legal_moves"][-1][0]})
        status, answer, _ = call(server, "POST", "/api/new", {})
        assert status == 200 and answer["state"]["moves"] == []
        assert snapshot(server)[1] == start_position    # the factory's seed: the same set-up

        status, answer, _ = call(server, "POST", "/api/load", {"position": after_one[1]})
        assert status == 200 and not answer["state"]["agent_to_move"]
        state, position = snapshot(server)
        assert position == after_one[1] and state["moves"] == [] and state["human_to_move"]


def test_a_move_chosen_in_an_older_position_is_refused():
    with running_server("scala_v0", seed=1) as server:
        state, _ = snapshot(server)
        (action, _), version = state["legal_moves"][0], state["version"]
        status, answer, _ = call(server, "POST", "/api/move", {"move": action, "version": version})
        assert status == 200
        assert call(server, "POST", "/api/undo")[0] == 200
        before = snapshot(server)
        status, answer, _ = call(server, "POST", "/api/move", {"move": action, "version": version})
        assert status == 409 and "changed" in answer["error"]
        assert snapshot(server) == before
        status, answer, _ = call(server, "POST", "/api/move", {"move": action, "version": "1"})
        assert status == 400 and '"version"' in answer["error"]


def test_an_agent_moves_only_when_asked_one_move_a_call():
    with running_server("scala_v0", human_seats=(1,), seed=2) as server:
        before = snapshot(server)
        state = before[0]
        assert state["agent_to_move"] and state["current_seat"] == 0
        assert state["moves"] == [] and state["legal_moves"] == []
        status, answer, _ = call(server, "POST", "/api/move", {"move": "e5-d4"})
        assert status == 409 and "/api/advance" in answer["error"]
        assert call(server, "POST", "/api/hint")[0] == 409
        assert snapshot(server) == before
        replies, state = let_agents_move(server, state)
        assert [(m["seat"], m["by"]) for m in replies] == [(0, "random")] and state["human_to_move"]
        status, answer, _ = call(server, "POST", "/api/advance")    # nothing for the agents to do
        assert status == 200 and answer["replies"] == [] and answer["state"] == state

        start = make_game("scala_v0").new_initial_state(np.random.default_rng(0)).to_text()
        status, answer, _ = call(server, "POST", "/api/load", {"position": start})
        assert status == 200 and answer["state"]["agent_to_move"] and answer["state"]["moves"] == []
        replies, state = let_agents_move(server, answer["state"])
        assert [m["seat"] for m in replies] == [0] and state["human_to_move"]


def test_hot_seat_every_seat_human():
    with running_server("golden_rush_v0", human_seats=(0, 1, 2, 3), seed=4) as server:
        state, _ = snapshot(server)
        assert state["human_seats"] == [0, 1, 2, 3] and state["moves"] == []
        seats = []
        for _ in range(8):
            seats.append(state["current_seat"])
            status, answer = play_move(server, state["legal_moves"][0][1])
            assert status == 200 and answer["replies"] == []
            state = answer["state"]
            assert state["human_to_move"] or state["is_over"]
        assert len(set(seats)) > 1


def test_several_agents_answer_one_move_at_a_time():
    with running_server("sky_scrapers_v0", {"players": 4}, opponent="greedy", human_seats=(1, 3), seed=5) as server:
        state, _ = snapshot(server)
        replies, state = let_agents_move(server, state)   # let_agents_move checks one move a call
        assert [m["seat"] for m in replies] == [0]
        for _ in range(3):
            assert state["current_seat"] in (1, 3) and state["human_to_move"]
            status, answer, _ = call(server, "POST", "/api/move", {"move": state["legal_moves"][0][0]})
            assert status == 200 and answer["state"]["agent_to_move"]
            assert answer["state"]["current_seat"] in (0, 2)
            replies, state = let_agents_move(server, answer["state"])
            assert replies and all(m["seat"] in (0, 2) and m["by"] == "greedy" for m in replies)


# ---------------------------------------------------------------- refused requests
def raw_request(server, method, path, body=b"", headers=None):
    """One request sent byte for byte as given (no client-side path normalisation)."""
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        all_headers = {"Host": f"127.0.0.1:{port}", "Content-Length": str(len(body))}
        all_headers.update(headers or {})
        for name, value in all_headers.items():
            connection.putheader(name, value)
        connection.endheaders(body or None)
        response = connection.getresponse()
        return response.status, response.read(), response.headers
    finally:
        connection.close()


MALFORMED_MOVES = [
    (b'{"move": ', 400, "not valid JSON"),
    (b'["e5-d4"]', 400, "JSON object"),
    (b'"e5-d4"', 400, "JSON object"),
    (b'{"move": 1.5}', 400, "integer"),
    (b'{"move": true}', 400, "integer"),
    (b'{"move": null}', 400, "integer"),
    (b'{"move": ["e5-d4"]}', 400, "integer"),
    (b'{"move": {"action": 3}}', 400, "integer"),
    (b'{"move": NaN}', 400, "not valid JSON"),
    (b'{"move": Infinity}', 400, "not valid JSON"),
    (b'{"move": 1' + b"0" * 5000 + b"}", 400, "not valid JSON"),
    (b'{"move": ""}', 400, "empty"),
    (b'{"move": "   "}', 400, "empty"),
    (json.dumps({"move": "e5-" + "d" * MAX_MOVE_CHARS}).encode(), 400, "longer than"),
    (b'{}', 400, "needs"),
    (b'{"action": 1}', 400, "unexpected field"),
    (b'{"move": "e5-d4", "code": "__import__(\'os\')"}', 400, "unexpected field"),
    (b'{"move": -1}', 422, "out of range"),
    (b'{"move": 100000000000000000000}', 422, "out of range"),
    (b"\xff\xfe{}", 400, "not valid JSON"),
    (b'{"move": "e5-d4"}' + b"x", 400, "not valid JSON"),
    (b"[" * 30000 + b"]" * 30000, 400, "not valid JSON"),
]


@pytest.mark.parametrize(("body", "status", "message"), MALFORMED_MOVES,
                         ids=[f"{i}:{body[:24]!r}" for i, (body, _, _) in enumerate(MALFORMED_MOVES)])
def test_malformed_move_bodies_are_refused_with_a_message(body, status, message):
    with running_server("scala_v0", seed=1) as server:
        before = snapshot(server)
        got_status, answer, headers = raw_request(server, "POST", "/api/move", body,
                                                  {"Content-Type": "application/json"})
        assert got_status == status
        assert headers["Content-Type"].startswith("application/json")
        assert message in json.loads(answer)["error"]
        assert snapshot(server) == before


def test_other_refused_requests_leave_the_game_unchanged():
    with running_server("scala_v0", seed=1) as server:
        before = snapshot(server)
        move = json.dumps({"move": before[0]["legal_moves"][0][1]}).encode()
        cases = [
            # (method, path, body, headers, expected status)
            ("POST", "/api/move", b"x" * 10, {"Content-Length": str(MAX_BODY_BYTES + 1),
                                              "Content-Type": "application/json"}, 413),
            ("POST", "/api/move", move, {"Content-Type": "text/plain"}, 415),
            ("POST", "/api/move", move, {"Content-Type": "application/x-www-form-urlencoded"}, 415),
            ("POST", "/api/move", move, {"Content-Length": "abc"}, 400),
            ("POST", "/api/move", move, {"Content-Type": "application/json", "Content-Length": "-5"}, 400),
            ("POST", "/api/move", move, {"Content-Type": "application/json",
                                         "Host": "evil.example:8000"}, 403),
            ("POST", "/api/load", b'{"position": 5}', {"Content-Type": "application/json"}, 400),
            ("POST", "/api/load", b'{"position": "not a position"}', {"Content-Type": "application/json"}, 400),
            ("POST", "/api/load", b'{"text": "x"}', {"Content-Type": "application/json"}, 400),
            ("POST", "/api/undo", b'{"steps": 2}', {"Content-Type": "application/json"}, 400),
            ("POST", "/api/new", b'{"seed": 2}', {"Content-Type": "application/json"}, 400),
            ("POST", "/api/hint", b'[]', {"Content-Type": "application/json"}, 400),
            ("GET", "/api/move", b"", {}, 405),
            ("PUT", "/api/move", move, {"Content-Type": "application/json"}, 405),
            ("DELETE", "/api/state", b"", {}, 405),
            ("POST", "/api/state", move, {"Content-Type": "application/json"}, 405),
            ("POST", "/", move, {"Content-Type": "application/json"}, 405),
            ("PATCH", "/static/play.js", b"", {}, 405),
            ("GET", "/api/nothing", b"", {}, 404),
            ("POST", "/api/eval", b'{"code": "1"}', {"Content-Type": "application/json"}, 404),
            ("GET", "/etc/passwd", b"", {}, 404),
            ("GET", "/static/../../etc/passwd", b"", {}, 404),
            ("GET", "/static/../web.py", b"", {}, 404),
            ("GET", "/static/..%2fweb.py", b"", {}, 404),
            ("GET", "/%2e%2e/%2e%2e/etc/passwd", b"", {}, 404),
            ("GET", "/static/%2e%2e/session.py", b"", {}, 404),
            ("GET", "/static//etc/passwd", b"", {}, 404),
            ("GET", "//etc/passwd", b"", {}, 404),
            ("GET", "/static/", b"", {}, 404),
            ("GET", "/static/index.html", b"", {}, 404),
            ("GET", "/static/play.js/../../web.py", b"", {}, 404),
            ("GET", "/static/play.js%00.py", b"", {}, 404),
            ("GET", "/static/PLAY.JS", b"", {}, 404),
            ("GET", "/web.py", b"", {}, 404),
            ("GET", "/sky_envs/play/web.py", b"", {}, 404),
            ("GET", "/__init__.py", b"", {}, 404),
        ]
        for method, path, body, headers, status in cases:
            got, content, response_headers = raw_request(server, method, path, body, headers)
            assert got == status, (method, path, headers, got, content)
            answer = json.loads(content)
            assert answer["error"] and b"root:" not in content and b"import" not in content
            if status == 405:
                assert response_headers["Allow"] in ("GET", "POST")
            assert snapshot(server) == before, (method, path)


def test_the_page_and_its_files_are_served_with_safe_headers():
    with running_server("scala_v0") as server:
        status, page, headers = call(server, "GET", "/")
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        assert b'src="/static/play.js"' in page and b'href="/static/play.css"' in page
        assert "default-src 'self'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        for path, kind in (("/static/play.js", "text/javascript"), ("/static/play.css", "text/css")):
            status, content, headers = call(server, "GET", path)
            assert status == 200 and headers["Content-Type"].startswith(kind) and len(content) > 100
        for host in ("localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST"):
            assert raw_request(server, "GET", "/api/state", headers={"Host": host})[0] == 200, host
        for host in ("evil.example", "127.0.0.1.evil.example:80", "", "[::1"):
            assert raw_request(server, "GET", "/api/state", headers={"Host": host})[0] == 403, host
        # a query string does not change what is served, nor reach a file
        assert call(server, "GET", "/api/picture.png?v=3&file=../../etc/passwd")[0] == 200
        assert call(server, "GET", "/?path=/etc/passwd")[1] == page


def test_the_server_binds_to_localhost_by_default_and_checks_the_port():
    import inspect

    from sky_envs.play.web import make_server, serve

    assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"
    assert inspect.signature(make_server).parameters["host"].default == "127.0.0.1"
    for port in (-1, 70000, "80", True):
        with pytest.raises(ValueError, match="port"):
            make_server(lambda: None, port=port)


def test_the_command_line_serves_the_page_until_interrupted():
    import urllib.request

    command = ["-m", "sky_envs.play", "--web", "--env", "skybridge_v0", "--seat", "1", "--seed", "2", "--port", "0"]
    with served_by_command(command, "Play in your browser: ") as url:
        with urllib.request.urlopen(url + "api/state", timeout=30) as response:
            state = json.loads(response.read())
        assert state["env_id"] == "skybridge_v0" and state["human_seats"] == [1]
        assert state["agent_to_move"] and state["current_seat"] == 0 and state["moves"] == []
        with urllib.request.urlopen(url, timeout=30) as response:
            assert b"/static/play.js" in response.read()


def test_the_command_line_serves_a_watched_game_and_a_folder_of_replays():
    import urllib.request

    from tests import REPO_ROOT

    command = ["-m", "sky_envs.play", "--web", "--env", "scala_v0", "--watch", "greedy", "random", "--pace", "0",
               "--port", "0"]
    with served_by_command(command, "Watch in your browser: ") as url:
        with urllib.request.urlopen(url + "api/state", timeout=30) as response:
            state = json.loads(response.read())
        assert state["mode"] == "watch" and state["pace_ms"] == 0
        assert [p["by"] for p in state["players"]] == ["greedy", "random"]
    command = ["-m", "sky_envs.replay", str(REPO_ROOT / "docs" / "replays"), "--web", "--port", "0"]
    with served_by_command(command, "Watch the replays in your browser: ") as url:
        with urllib.request.urlopen(url + "api/state", timeout=30) as response:
            listing = json.loads(response.read())
        assert listing["mode"] == "replays" and len(listing["games"]) == 6
