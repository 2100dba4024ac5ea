"""Play in the browser: a small local server over one :class:`PlaySession`.

``python -m sky_envs.play --web`` calls :func:`serve`; tests call :func:`make_server` with
port 0 and run it in a thread. The standard library's threading HTTP server is enough for
one page and a handful of JSON calls, and adds no dependency.

What the server exposes, and nothing else:

* ``GET /`` (the page) and ``GET /static/play.js``, ``GET /static/play.css``: a fixed
  table of files read once from the package at start-up. Request paths are looked up in
  that table as whole strings, never joined to a directory, so no request reads any
  other file (``/static/../x``, ``/%2e%2e/x`` and the like are simply unknown: 404).
* ``GET /api/state``: the game as JSON (board text, legal moves as ``[action, notation]``
  when a human is to move, whose turn, the game's running counts, final scores, result,
  move log, the env docstring's "Move notation" section, the game's rules summary as plain
  text under ``"rules"`` ("" where the game has none) and its docs page under ``"docs_page"``).
* ``GET /api/position``: ``{"position": text}``, the position text to save. It is asked for
  separately because in a hidden-information game (Sky Towers) it holds every hidden card,
  which the board text and the picture keep hidden from the seat to move.
* ``GET /api/picture.png``: the position drawn by the game's ``rgb_array`` renderer.
* ``POST /api/move`` ``{"move": notation or action, "version": N}``: the human's move,
  checked by the session like a typed move in the terminal; the answer has the move
  (``"played"``) and the new state. ``version`` (optional) is the state's ``"version"`` the
  page chose the move in: a move chosen in a position that has changed since (another
  tab, a double click) is refused with 409.
* ``POST /api/advance`` (body ``{}`` or empty): while ``"agent_to_move"`` is true, one
  agent move per call (``"replies"``: that move, and the new state), so the page shows the
  agents' moves as they come and the lock is held for one agent decision at a time; ``[]``
  when a human is to move or the game is over. Agents never move unasked: after a new
  game, a load or a human move the page calls this until a human is to move.
* ``POST /api/undo``, ``POST /api/hint``, ``POST /api/new`` (body ``{}`` or empty) and
  ``POST /api/load`` ``{"position": text}``.

Every request is checked before it reaches the session: POST bodies must be JSON objects
of at most :data:`MAX_BODY_BYTES` with exactly the documented keys and types (sent as
``application/json``, which a page of another site cannot do without the browser asking
first); a malformed request gets 400 with ``{"error": message}``, an illegal move 422 with
the session's reason, a move when no human is to move 409, an unknown path 404, a known
path with the wrong method 405. On a loopback address the ``Host`` header must name
a loopback host too (a page of another site reaching the server by DNS rebinding gets 403).
One lock serialises every use of the session: the server answers requests in threads.
"""

from __future__ import annotations

import io
import json
import socket
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from ipaddress import ip_address
from typing import Any

import numpy as np
from PIL import Image

from sky_envs.core.state import IllegalActionError
from sky_envs.play.terminal import notation_help, plain_text

#: largest POST body accepted (a position text is well under 4 KiB in every game)
MAX_BODY_BYTES = 64 * 1024
#: longest move notation accepted before the session parses it
MAX_MOVE_CHARS = 256
#: seconds a connection may stay silent before the server drops it (a stalled client
#: must not hold a thread forever)
SOCKET_TIMEOUT_S = 30

#: request path -> (file in sky_envs/play/static, content type); the only files served
STATIC_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/static/play.js": ("play.js", "text/javascript; charset=utf-8"),
    "/static/play.css": ("play.css", "text/css; charset=utf-8"),
}
API_GET = {"/api/state", "/api/picture.png", "/api/position"}
API_POST = {"/api/move", "/api/advance", "/api/undo", "/api/hint", "/api/new", "/api/load"}

_COMMON_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self'; script-src 'self'; style-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
}


class RequestError(Exception):
    """A request the server refuses: the HTTP status and a message the page shows."""

    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _jsonable(value: Any) -> Any:
    """``value`` with numpy arrays and scalars turned into plain lists and numbers."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _move_json(move) -> dict[str, Any]:
    return {"seat": int(move.seat), "action": int(move.action), "text": move.text, "by": move.by}


def png_bytes(picture: np.ndarray) -> bytes:
    """An ``(H, W, 3)`` uint8 picture encoded as PNG."""
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(picture, dtype=np.uint8), "RGB").save(buffer, format="PNG")
    return buffer.getvalue()


def _load_static_files() -> dict[str, tuple[bytes, str]]:
    folder = resources.files("sky_envs.play") / "static"
    return {path: ((folder / name).read_bytes(), ctype) for path, (name, ctype) in STATIC_FILES.items()}


class WebGame:
    """The session behind the page and the operations the API offers on it, under one lock.

    ``session_factory()`` makes a new :class:`PlaySession`; it is called once now and again
    for every "new game". Agents move only when asked (:meth:`advance`, one move a call).
    """

    def __init__(self, session_factory: Callable[[], Any]):
        self._factory = session_factory
        self._lock = threading.Lock()
        #: counts changes of the position, so the page can ask for a fresh picture
        self._version = 0
        self._session = self._factory()

    def _changed(self) -> None:
        self._version += 1

    # ------------------------------------------------------------ reads
    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._state_locked()

    def _state_locked(self) -> dict[str, Any]:
        s = self._session
        over = s.is_over
        human_to_move = (not over) and s.human_to_move
        return {
            "env_id": s.env_id,
            "options": _jsonable(dict(s.options or {})),
            "num_players": int(s.num_players),
            "human_seats": [int(seat) for seat in s.human_seats],
            "current_seat": int(s.current_seat),
            "human_to_move": bool(human_to_move),
            "agent_to_move": bool(not over and not human_to_move),
            "is_over": bool(over),
            "result": s.result() if over else None,
            "scores": _jsonable(s.scores),
            # the game's running counts (stones, scores, flags...): the final ``scores`` are
            # zeros until the end
            "info": _jsonable(s.state.info()),
            "legal_moves": [[int(a), text] for a, text in s.legal_moves()] if human_to_move else [],
            "moves": [_move_json(m) for m in s.moves],
            "board_text": s.render_text(),
            "notation_help": notation_help(s.env_id),
            "rules": self._rules(),
            "docs_page": f"docs/envs/{s.env_id}.md",
            "version": self._version,
        }

    def _rules(self) -> str:
        try:
            return plain_text(self._session.game.rules_summary())
        except FileNotFoundError:   # a game registered without a summary
            return ""

    def position(self) -> dict[str, str]:
        with self._lock:
            return {"position": self._session.position_text()}

    def picture_png(self) -> bytes:
        with self._lock:
            picture = self._session.render_rgb()
        return png_bytes(picture)

    # ------------------------------------------------------------ changes
    def move(self, move: str | int, seen_version: int | None = None) -> dict[str, Any]:
        with self._lock:
            s = self._session
            if seen_version is not None and seen_version != self._version:
                raise RequestError(HTTPStatus.CONFLICT, "the game has changed since this move was chosen: "
                                   "look at the new position and choose again")
            if s.is_over:
                raise RequestError(HTTPStatus.CONFLICT, "the game is over: start a new game or undo")
            if not s.human_to_move:
                raise RequestError(HTTPStatus.CONFLICT, f"it is not a human's turn: player_{s.current_seat} "
                                   "is an agent (POST /api/advance lets it move)")
            try:
                played = s.play(move)
            except IllegalActionError as error:
                raise RequestError(HTTPStatus.UNPROCESSABLE_ENTITY, str(error)) from None
            except ValueError as error:
                raise RequestError(HTTPStatus.BAD_REQUEST, str(error)) from None
            self._changed()
            return {"played": _move_json(played), "state": self._state_locked()}

    def advance(self) -> dict[str, Any]:
        with self._lock:
            replies = self._session.advance(limit=1)
            if replies:
                self._changed()
            return {"replies": [_move_json(m) for m in replies], "state": self._state_locked()}

    def undo(self) -> dict[str, Any]:
        with self._lock:
            undone = bool(self._session.undo())
            if undone:
                self._changed()
            return {"undone": undone, "state": self._state_locked()}

    def hint(self) -> dict[str, Any]:
        with self._lock:
            s = self._session
            if s.is_over or not s.human_to_move:
                raise RequestError(HTTPStatus.CONFLICT, "no hint: no human is to move")
            action, text = s.hint()
            return {"hint": [int(action), text], "state": self._state_locked()}

    def new_game(self) -> dict[str, Any]:
        with self._lock:
            self._session = self._factory()
            self._changed()
            return {"state": self._state_locked()}

    def load(self, position: str) -> dict[str, Any]:
        with self._lock:
            try:
                self._session.load_position(position)
            except ValueError as error:
                raise RequestError(HTTPStatus.BAD_REQUEST, f"position not loaded: {error}") from None
            self._changed()
            return {"state": self._state_locked()}


# ---------------------------------------------------------------- request checks
def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_json_object(body: bytes) -> dict[str, Any]:
    """A POST body as a JSON object; an empty body is ``{}``. :class:`RequestError` otherwise."""
    if not body.strip():
        return {}
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise RequestError(HTTPStatus.BAD_REQUEST, f"the body is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise RequestError(HTTPStatus.BAD_REQUEST,
                           f"the body must be a JSON object, got a JSON {type(value).__name__}")
    return value


def _only_keys(body: dict[str, Any], allowed: set[str], path: str) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        expected = ", ".join(f'"{k}"' for k in sorted(allowed)) or "no fields"
        raise RequestError(HTTPStatus.BAD_REQUEST, f"{path}: unexpected field(s) {unknown}; expected {expected}")


def move_from_body(body: dict[str, Any]) -> tuple[str | int, int | None]:
    """The ``"move"`` of a POST /api/move body (a notation string or an action index) and
    its optional ``"version"``."""
    _only_keys(body, {"move", "version"}, "/api/move")
    version = body.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise RequestError(HTTPStatus.BAD_REQUEST, f'"version" must be an integer, got {type(version).__name__}')
    if "move" not in body:
        raise RequestError(HTTPStatus.BAD_REQUEST, '/api/move needs {"move": notation text or action number}')
    move = body["move"]
    if isinstance(move, bool) or not isinstance(move, (str, int)):
        raise RequestError(HTTPStatus.BAD_REQUEST,
                           f'"move" must be a notation string or an integer action, got {type(move).__name__}')
    if isinstance(move, str):
        if not move.strip():
            raise RequestError(HTTPStatus.BAD_REQUEST, "the move is empty: type a move in the game's notation")
        if len(move) > MAX_MOVE_CHARS:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the move is longer than {MAX_MOVE_CHARS} characters")
    return move, version


def position_from_body(body: dict[str, Any]) -> str:
    _only_keys(body, {"position"}, "/api/load")
    position = body.get("position")
    if not isinstance(position, str) or not position.strip():
        raise RequestError(HTTPStatus.BAD_REQUEST, '/api/load needs {"position": the position text}')
    return position


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    """The host of a ``Host`` header value, without port or IPv6 brackets, lower case."""
    host = header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


# ---------------------------------------------------------------- the server
class PlayRequestHandler(BaseHTTPRequestHandler):
    server: PlayServer
    server_version = "sky_envs-play"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S

    # Every method goes through one router, so a known path with an unsupported method
    # is answered 405 (the base class would say 501) and an unknown path 404.
    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_HEAD(self):
        self._handle("HEAD")

    def do_PUT(self):
        self._handle("PUT")

    def do_DELETE(self):
        self._handle("DELETE")

    def do_PATCH(self):
        self._handle("PATCH")

    def do_OPTIONS(self):
        self._handle("OPTIONS")

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        if not self.server.quiet:
            super().log_message(format, *args)

    def _handle(self, method: str) -> None:
        try:
            self._check_host()
            path = self._route_path()
            if path in STATIC_FILES or path in API_GET:
                if method != "GET":
                    self._discard_body()
                    raise RequestError(HTTPStatus.METHOD_NOT_ALLOWED, f"{path} accepts GET only")
                self._get(path)
            elif path in API_POST:
                if method != "POST":
                    self._discard_body()
                    raise RequestError(HTTPStatus.METHOD_NOT_ALLOWED, f"{path} accepts POST only")
                self._send_json(HTTPStatus.OK, self._post(path, self._read_json_body()))
            else:
                self._discard_body()
                raise RequestError(HTTPStatus.NOT_FOUND, f"no such page: {path[:100]!r}")
        except RequestError as error:
            self._send_json(error.status, {"error": error.message})
        except Exception as error:  # a bug must not kill the thread silently or leak a traceback
            self.log_error("internal error on %s %s: %r", method, self.path[:200], error)
            self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(error).__name__}"})

    def _route_path(self) -> str:
        """The request target without its query string, compared as it came: never
        percent-decoded or normalised, so ``..`` and ``%2e%2e`` only ever miss the tables."""
        return self.path.split("?", 1)[0].split("#", 1)[0]

    def _check_host(self) -> None:
        if not self.server.loopback_only:
            return
        host = _host_name(self.headers.get("Host", ""))
        if not _is_loopback(host):
            self.close_connection = True
            raise RequestError(HTTPStatus.FORBIDDEN, "this server answers requests for localhost only")

    def _get(self, path: str) -> None:
        if path in STATIC_FILES:
            body, ctype = self.server.static_files[path]
            self._send(HTTPStatus.OK, body, ctype)
        elif path == "/api/state":
            self._send_json(HTTPStatus.OK, self.server.game.state())
        elif path == "/api/position":
            self._send_json(HTTPStatus.OK, self.server.game.position())
        else:
            self._send(HTTPStatus.OK, self.server.game.picture_png(), "image/png")

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        game = self.server.game
        if path == "/api/move":
            return game.move(*move_from_body(body))
        if path == "/api/load":
            return game.load(position_from_body(body))
        _only_keys(body, set(), path)
        if path == "/api/advance":
            return game.advance()
        if path == "/api/undo":
            return game.undo()
        if path == "/api/hint":
            return game.hint()
        return game.new_game()

    def _content_length(self) -> int:
        if "Transfer-Encoding" in self.headers:
            self.close_connection = True
            raise RequestError(HTTPStatus.LENGTH_REQUIRED, "chunked bodies are not accepted: send Content-Length")
        raw = self.headers.get("Content-Length", "0").strip()
        if not raw.isdigit():
            self.close_connection = True
            raise RequestError(HTTPStatus.BAD_REQUEST, f"bad Content-Length {raw[:20]!r}")
        return int(raw)

    def _discard_body(self) -> None:
        """Read a small stray body so the connection stays in step; drop the connection otherwise."""
        try:
            length = self._content_length()
        except RequestError:
            return
        if length > MAX_BODY_BYTES:
            self.close_connection = True
        elif length:
            self.rfile.read(length)

    def _read_json_body(self) -> dict[str, Any]:
        length = self._content_length()
        if length > MAX_BODY_BYTES:
            self.close_connection = True    # the unread body must not be taken for a request
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                               f"the body has {length} bytes; at most {MAX_BODY_BYTES} are accepted")
        body = self.rfile.read(length) if length else b""
        if len(body) != length:
            self.close_connection = True
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body ended before Content-Length bytes")
        ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if body.strip() and ctype != "application/json":
            raise RequestError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                               f"send the body as application/json (got {ctype or 'no Content-Type'!r})")
        return parse_json_object(body)

    def _send_json(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        self._send(status, json.dumps(payload).encode("utf-8"), "application/json; charset=utf-8")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in _COMMON_HEADERS.items():
            self.send_header(name, value)
        if status == HTTPStatus.METHOD_NOT_ALLOWED:
            self.send_header("Allow", "POST" if self._route_path() in API_POST else "GET")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class PlayServer(ThreadingHTTPServer):
    """The HTTP server with its :class:`WebGame` and the page's files."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], game: WebGame, quiet: bool = False):
        self.game = game
        self.quiet = quiet
        self.static_files = _load_static_files()
        self.loopback_only = _is_loopback(address[0])
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, PlayRequestHandler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"


def make_server(session_factory: Callable[[], Any], host: str = "127.0.0.1", port: int = 8000,
                quiet: bool = False) -> PlayServer:
    """A bound :class:`PlayServer` (not yet serving); ``port=0`` picks a free port."""
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer from 0 to 65535, got {port!r}")
    return PlayServer((host, port), WebGame(session_factory), quiet=quiet)


def serve(session_factory: Callable[[], Any], host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the play page at ``http://host:port/`` until interrupted (Ctrl+C)."""
    server = make_server(session_factory, host, port)
    if not server.loopback_only:
        print(f"warning: {host} is not a loopback address; anyone who can reach it can play "
              "on this server", file=sys.stderr)
    print(f"Play in your browser: {server.url}  (Ctrl+C stops the server)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
