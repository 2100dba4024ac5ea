"""Helpers shared by the play server's API tests and its browser tests: a real play or replay
server on an ephemeral port in a thread, JSON requests with urllib, a well-formed illegal
move, and the game configurations the board is tested in."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import urllib.error
import urllib.request

from sky_envs.core.boards import DIRECTION_NAMES, DIRECTION_STEPS
from sky_envs.core.notation import cell_name, column_index
from sky_envs.core.registry import make_game
from sky_envs.core.state import IllegalActionError
from sky_envs.play import PlaySession
from sky_envs.play.web import make_server
from sky_envs.play.web_replay import make_replay_server

PLAY_ENV_IDS = ["sky_scrapers_v0", "scala_v0", "highrise_heist_v0", "golden_rush_v0",
                "skybridge_v0", "sky_towers_v0"]
#: every env, Sky Scrapers in every board shape, set-up and seat count: what the board views
#: and the clicks are tested on
BOARD_CONFIGS = [
    ("sky_scrapers_v0", {}),
    ("sky_scrapers_v0", {"players": 4}),
    ("sky_scrapers_v0", {"lines": "hex", "board": "random", "rows": 6, "cols": 6, "positioning": "random"}),
    ("sky_scrapers_v0", {"lines": "orthogonal", "board": "square", "rows": 4, "cols": 5}),
    ("sky_scrapers_v0", {"board": ".#../..../..#.", "positioning": "strategic"}),
    ("sky_scrapers_v0", {"positioning": "random", "players": 4, "board": "square", "rows": 6, "cols": 6}),
    ("scala_v0", {}),
    ("highrise_heist_v0", {}),
    ("golden_rush_v0", {}),
    ("golden_rush_v0", {"mode": "teams"}),
    ("skybridge_v0", {}),
    ("skybridge_v0", {"players": 3}),
    ("skybridge_v0", {"players": 4, "variant": "classic", "rows": 3, "cols": 4}),
    ("sky_towers_v0", {}),
    ("sky_towers_v0", {"players": 4}),
]


def config_id(config):
    env_id, options = config
    return env_id + "".join(f"-{k}={v}" for k, v in options.items())


def expected_ways(env_id, state, text):
    """Where the move ``text`` (the game's notation) should start and end on the board."""
    seat = state.current_player
    if env_id == "sky_scrapers_v0":
        if match := re.fullmatch(r"([a-z]+)([0-9]+)>([A-Z]+)", text):
            r, c = int(match[2]) - 1, column_index(match[1])
            board = state.board
            height = int(state.heights[r * board.cols + c])
            dr, dc = DIRECTION_STEPS[DIRECTION_NAMES.index(match[3])]
            return [(cell_name(r, c), cell_name(r + height * dr, c + height * dc))]
        if text.startswith("+"):
            return [(None, text[1:])]
        return [(None, f"colour:{text}")]
    if env_id == "scala_v0":
        return [tuple(text.split("-"))]
    if env_id in ("highrise_heist_v0", "golden_rush_v0"):
        if text in ("pass", "swap"):
            return [(None, text)]
        if ">" in text:
            a, b = text.split(">")
            return [(f"stand:{a}", f"stand:{b}")]
        stands = sorted(set(text[1:]))
        if len(stands) == 1:
            return [("supply", f"stand:{stands[0]}")]
        return [(f"stand:{stands[0]}", f"stand:{stands[1]}"), (f"stand:{stands[1]}", f"stand:{stands[0]}")]
    if env_id == "skybridge_v0":
        origin = f"p{seat}:{text[:2]}"
        if text[0] == "B":
            return [(origin, end) for end in text[2:].split("-")]
        return [(origin, text[2:])]
    # sky_towers_v0
    words = text.split()
    if text in ("draw", "keep", "bottom"):
        return [(None, "deck")]
    if text == "stop":
        return [(None, "stop")]
    if words[0] == "take":
        return [(None, f"open:{words[1]}")]
    if words[0] == "dismantle":
        return [(f"p{seat}:dismantle", f"p{seat}:t{words[1]}")]
    if words[0] in ("give", "discard"):
        return [(None, f"p{seat}:hand:{words[1]}")]
    if words[0] in ("exchange", "ask"):
        return [(None, f"{words[1]}:seat")]
    value, where = text.split(">")
    owner, place = where.split(":") if ":" in where else (f"p{seat}", where)
    return [(f"p{seat}:hand:{value}", f"{owner}:{place if place in 'LR' else 't' + place}")]


@contextlib.contextmanager
def serving(server):
    """``server`` serving in a thread until the block ends."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def running_server(env_id="scala_v0", options=None, opponent="random", human_seats=(0,), seed=0):
    """A play server over a new PlaySession, serving in a thread until the block ends."""

    def session_factory():
        return PlaySession(env_id, options, opponent=opponent, human_seats=human_seats, seed=seed)

    return serving(make_server(session_factory, host="127.0.0.1", port=0, quiet=True))


def replay_server(path):
    """A replay server over ``path`` (a replay file or a folder), serving in a thread."""
    return serving(make_replay_server(path, port=0, quiet=True))


@contextlib.contextmanager
def served_by_command(arguments, banner_start):
    """Run ``python ARGUMENTS`` (a server on port 0), yield the address its first line names
    (after ``banner_start``), then stop it with Ctrl+C and check it ended cleanly."""
    import os
    import signal
    import subprocess
    import sys

    # Ctrl+C's default action in the server, even where this run was started in the background
    # (a shell starts background jobs with SIGINT ignored, and children inherit that)
    def default_sigint():
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    with subprocess.Popen([sys.executable, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=default_sigint) as process:
        try:
            banner = process.stdout.readline()
            assert banner.startswith(banner_start + "http://127.0.0.1:"), banner
            yield banner[len(banner_start):].split()[0]
        finally:
            process.send_signal(signal.SIGINT)
            try:
                code = process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                raise
            assert code == 0


def call(server, method, path, body=None, raw=None, headers=None):
    """``(status, decoded JSON or raw bytes, response headers)`` of one request; ``body`` is
    sent as JSON, ``raw`` as given."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    all_headers = {"Content-Type": "application/json"} if data is not None else {}
    all_headers.update(headers or {})
    request = urllib.request.Request(server.url.rstrip("/") + path, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, content, response_headers = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, content, response_headers = error.code, error.read(), error.headers
    if response_headers.get("Content-Type", "").startswith("application/json"):
        content = json.loads(content)
    return status, content, response_headers


def illegal_move_text(env_id, position, options=None):
    """A move written in ``env_id``'s notation that is well formed but illegal in ``position``."""
    state = make_game(env_id, **(options or {})).state_from_text(position)
    legal = state.legal_mask()
    for action in range(state.game.num_actions):
        if legal[action]:
            continue
        text = state.action_to_string(action)
        try:
            state.string_to_action(text)
        except IllegalActionError:
            return text
        except ValueError:
            continue    # an action slot with no notation of its own (Highrise Heist's "0>0")
    raise AssertionError(f"every well-formed move is legal in this {env_id} position")


def let_agents_move(server, state):
    """Ask for agent moves (``POST /api/advance``, one a call) until a human is to move or
    the game is over: ``(replies, state)``."""
    replies = []
    while state["agent_to_move"]:
        status, answer, _ = call(server, "POST", "/api/advance", {})
        assert status == 200 and len(answer["replies"]) == 1, answer
        assert answer["state"]["version"] > state["version"]
        replies += answer["replies"]
        state = answer["state"]
    return replies, state


def play_move(server, move):
    """``POST /api/move`` then the agents' answers: ``(status, answer)``, where a played
    answer also holds the ``"replies"`` and the ``"state"`` after them."""
    status, answer, _ = call(server, "POST", "/api/move", {"move": move})
    if status == 200:
        answer["replies"], answer["state"] = let_agents_move(server, answer["state"])
    return status, answer
