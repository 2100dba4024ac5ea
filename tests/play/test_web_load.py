"""The play server under load, on loopback only: many clients at once send moves (by action
and by notation, with and without the version they chose them in), undos, hints, reads,
agent advances and malformed requests of every kind. Every answer must be one the API
documents for that request (never a 5xx, never a hang), every accepted change must have
its own version, and the game afterwards must be the one its accepted moves and undos make
in version order.

The full campaign (20 clients x 500 requests) is marked slow; the default run sends a
smaller one through the same code.
"""

from __future__ import annotations

import http.client
import json
import random
import threading

import pytest

from sky_envs.core.registry import make_game
from tests.play.play_web_support import running_server

ENV_ID = "sky_scrapers_v0"
TIMEOUT_S = 60

#: request kind -> the statuses the API documents for it (in this hot-seat game, where no
#: agent ever moves)
ALLOWED = {
    "move": {200, 409, 422},        # 409: chosen in an older version, or the game is over; 422: illegal now
    "move_text": {200, 409, 422},
    "undo": {200},
    "hint": {200, 409},             # 409 once the game is over
    "state": {200},
    "advance": {200},
    "bad_json": {400},
    "not_object": {400},
    "unknown_key": {400},
    "wrong_type": {400},
    "empty_move": {400},
    "gibberish_move": {400},
    "wrong_ctype": {415},
    "unknown_path": {404},
    "wrong_method": {405},
    "too_big": {413},
    "chunked": {411},
    "bad_length": {400},
    "foreign_host": {403},
}


class Client:
    """One keep-alive connection that reconnects when the server closes it."""

    def __init__(self, server):
        self.host, self.port = server.server_address[:2]
        self.connection = None

    def request(self, method, path, body=None, headers=None, send_body=True):
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
        connection = self.connection
        headers = dict(headers or {})
        connection.putrequest(method, path, skip_host="Host" in headers, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None and "Content-Length" not in headers:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body if send_body else None)
        response = connection.getresponse()
        data = response.read()
        if response.getheader("Connection", "").lower() == "close" or response.will_close:
            connection.close()
            self.connection = None
        answer = json.loads(data) if response.getheader("Content-Type", "").startswith("application/json") else data
        return response.status, answer

    def json(self, method, path, payload):
        return self.request(method, path, json.dumps(payload).encode(), {"Content-Type": "application/json"})

    def close(self):
        if self.connection is not None:
            self.connection.close()


def one_request(client, kind, seen, rng):
    """Send one request of ``kind``; ``seen`` is the last state this client saw."""
    legal = seen["legal_moves"] if seen else []
    pick = rng.choice(legal) if legal else [0, "a1>N"]
    version = seen["version"] if seen and rng.random() < 0.7 else None
    body = {"move": pick[0]} if version is None else {"move": pick[0], "version": version}
    if kind == "move":
        return client.json("POST", "/api/move", body)
    if kind == "move_text":
        return client.json("POST", "/api/move", {**body, "move": pick[1]})
    if kind in ("undo", "hint", "advance"):
        return client.json("POST", f"/api/{kind}", {})
    if kind == "state":
        return client.request("GET", "/api/state")
    json_headers = {"Content-Type": "application/json"}
    if kind == "bad_json":
        return client.request("POST", "/api/move", b'{"move": ', json_headers)
    if kind == "not_object":
        return client.request("POST", "/api/undo", b"[1, 2]", json_headers)
    if kind == "unknown_key":
        return client.json("POST", "/api/move", {"move": 0, "please": True})
    if kind == "wrong_type":
        return client.json("POST", "/api/move", {"move": [1]})
    if kind == "empty_move":
        return client.json("POST", "/api/move", {"move": "  "})
    if kind == "gibberish_move":
        return client.json("POST", "/api/move", {"move": "xyzzy 99"})
    if kind == "wrong_ctype":
        return client.request("POST", "/api/move", b'{"move": 0}', {"Content-Type": "text/plain"})
    if kind == "unknown_path":
        return client.request("GET", rng.choice(["/api/nothing", "/static/../web.py", "/%2e%2e/setup.py"]))
    if kind == "wrong_method":
        return client.request(rng.choice(["GET", "PUT", "DELETE"]), "/api/move")
    if kind == "too_big":       # the size announced, the body never sent: the server must not wait for it
        return client.request("POST", "/api/move", b"", {"Content-Type": "application/json",
                                                         "Content-Length": str(10 ** 6)}, send_body=False)
    if kind == "chunked":
        return client.request("POST", "/api/undo", None, {"Transfer-Encoding": "chunked",
                                                          "Content-Type": "application/json"}, send_body=False)
    if kind == "bad_length":
        return client.request("POST", "/api/undo", None, {"Content-Length": "12abc"}, send_body=False)
    if kind == "foreign_host":
        return client.request("GET", "/api/state", None, {"Host": "attacker.example"})
    raise AssertionError(kind)


def hammer(server, clients: int, requests_each: int, seed: int):
    """Run the clients at once; return (answers by kind, accepted changes, failures)."""
    kinds = list(ALLOWED)
    weights = [30 if k in ("move", "move_text") else 10 if k in ("undo", "state") else 4 if k in ("hint", "advance")
               else 1 for k in kinds]
    changes, failures, counts = [], [], {}
    lock = threading.Lock()

    def run(index):
        rng = random.Random(seed * 1000 + index)
        client = Client(server)
        seen = None
        try:
            for _ in range(requests_each):
                kind = rng.choices(kinds, weights)[0]
                status, answer = one_request(client, kind, seen, rng)
                with lock:
                    counts[(kind, status)] = counts.get((kind, status), 0) + 1
                    if status not in ALLOWED[kind]:
                        failures.append(f"{kind}: {status} {str(answer)[:200]}")
                if isinstance(answer, dict) and isinstance(answer.get("state"), dict):
                    seen = answer["state"]
                elif kind == "state" and status == 200:
                    seen = answer
                if status == 200 and kind in ("move", "move_text"):
                    with lock:
                        changes.append((answer["state"]["version"], "move", answer["played"]["action"]))
                elif status == 200 and kind == "undo" and answer["undone"]:
                    with lock:
                        changes.append((answer["state"]["version"], "undo", None))
        except Exception as error:      # a hang (timeout) or a broken connection fails the test
            with lock:
                failures.append(f"client {index}: {type(error).__name__}: {error}")
        finally:
            client.close()

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=TIMEOUT_S * 4)
    hung = sum(thread.is_alive() for thread in threads)
    assert not hung, f"{hung} client(s) still waiting for the server"
    return counts, sorted(changes), failures


def check_campaign(clients: int, requests_each: int, seed: int):
    with running_server(ENV_ID, human_seats=(0, 1), seed=seed) as server:
        start = Client(server)
        _, before = start.request("GET", "/api/state")
        _, start_position = start.request("GET", "/api/position")
        counts, changes, failures = hammer(server, clients, requests_each, seed)
        _, after = start.request("GET", "/api/state")
        _, final_position = start.request("GET", "/api/position")
        start.close()
    assert not failures, "\n".join(failures[:20])
    assert sum(counts.values()) == clients * requests_each
    # every accepted change has its own version, one after the other
    assert [version for version, _, _ in changes] == list(range(before["version"] + 1, after["version"] + 1))
    # the game is the one the accepted moves and undos make, in version order
    state = make_game(ENV_ID).state_from_text(start_position["position"])
    stack = []
    for _, what, action in changes:
        if what == "move":
            stack.append(state.clone())
            state.apply(action)       # legal where the server accepted it
        else:
            state = stack.pop()
    assert state.to_text() == final_position["position"]
    assert len(after["moves"]) == len(stack)
    played = sum(1 for kind, status in counts if kind.startswith("move") and status == 200)
    assert played > 0 and any(kind == "undo" for kind, _ in counts)
    return counts


def test_many_clients_at_once_get_only_documented_answers():
    counts = check_campaign(clients=5, requests_each=40, seed=1)
    assert {kind for kind, _ in counts} >= {"move", "undo", "state"}


@pytest.mark.slow
def test_twenty_clients_of_five_hundred_requests_each():
    counts = check_campaign(clients=20, requests_each=500, seed=2)
    assert set(kind for kind, _ in counts) == set(ALLOWED)
