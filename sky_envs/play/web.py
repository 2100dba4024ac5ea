"""Play or watch in the browser: a small local server over one :class:`PlaySession`.

``python -m sky_envs.play --web`` (``--watch A B`` to watch agents) calls :func:`serve`;
tests call :func:`make_server` with port 0 and run it in a thread. The standard library's
threading HTTP server is enough for one page and a handful of JSON calls, and adds no
dependency. The request checks every call passes are in :mod:`sky_envs.play.server`
(fixed static files, strict JSON bodies, loopback ``Host``, 400 / 404 / 405 / 413 / 415).

What the server exposes, and nothing else:

* ``GET /`` (the page) and its two static files (:mod:`sky_envs.play.server`).
* ``GET /api/state``: the game as JSON: ``"mode"`` (``"play"``, or ``"watch"`` when every
  seat is an agent), ``"players"`` (per seat its name, who plays it, its colours), whose
  turn, ``"board"`` (the position as a scene to draw, :mod:`sky_envs.core.scene`), the
  legal moves as ``[action, notation]`` when a human is to move and the same moves as
  ``"board_moves"`` (``{"action", "text", "words", "ways"}``: the ``[origin, target]``
  pairs of board things a click plays them by), ``"last_move_ids"`` (the things the last
  move touched), the game's running counts (``"info"``), final scores, ``"result"`` and
  ``"result_words"`` (who won and why), the move log, the board text, the env docstring's
  "Move notation" section, the game's rules summary as plain text under ``"rules"`` (""
  where the game has none), its docs page under ``"docs_page"``, ``"pace_ms"`` (the pause
  the page makes before each agent move) and ``"version"``. Hidden hands (Sky Towers) are
  drawn for the human seat(s) only, every hand once the game is over or when watching.
* ``GET /api/position``: ``{"position": text}``, the position text to save. It is asked for
  separately because in a hidden-information game (Sky Towers) it holds every hidden card.
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
  game, a load or a human move the page calls this until a human is to move; when
  watching, at the pace the viewer sets.
* ``POST /api/undo``, ``POST /api/hint``, ``POST /api/new`` (body ``{}`` or empty) and
  ``POST /api/load`` ``{"position": text}``.

A malformed request gets 400 with ``{"error": message}``, an illegal move 422 with the
session's reason, a move when no human is to move (or a hint) 409. One lock serialises
every use of the session: the server answers requests in threads. The state sent is built
once per version of the game.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import numpy as np
from PIL import Image

from sky_envs.core.state import IllegalActionError
from sky_envs.play.board import board_fields, board_view_of, move_choices, players_json
from sky_envs.play.server import MAX_BODY_BYTES, PlayServer, RequestError, bind, check_port, jsonable, only_keys, serve_forever
from sky_envs.play.terminal import notation_help, plain_text

__all__ = ["MAX_BODY_BYTES", "MAX_MOVE_CHARS", "WebGame", "make_server", "serve"]

#: longest move notation accepted before the session parses it
MAX_MOVE_CHARS = 256
#: the page's pause before each agent move, in milliseconds (``?pace=MS`` in the page's
#: address overrides it)
DEFAULT_PACE_MS = 400

API_GET = {"/api/state", "/api/picture.png", "/api/position"}
API_POST = {"/api/move", "/api/advance", "/api/undo", "/api/hint", "/api/new", "/api/load"}


def _move_json(move) -> dict[str, Any]:
    return {"seat": int(move.seat), "action": int(move.action), "text": move.text, "by": move.by}


def png_bytes(picture: np.ndarray) -> bytes:
    """An ``(H, W, 3)`` uint8 picture encoded as PNG."""
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(picture, dtype=np.uint8), "RGB").save(buffer, format="PNG")
    return buffer.getvalue()


def rules_text(game) -> str:
    """The game's rules summary as plain text ('' for a game registered without one)."""
    try:
        return plain_text(game.rules_summary())
    except FileNotFoundError:
        return ""


def shown_seats(session) -> set[int] | None:
    """The seats whose hidden cards the page draws: the human's (in hot-seat, the human to
    move), every seat (``None``) once the game is over or when only agents play."""
    if session.is_over or session.watching:
        return None
    if len(session.human_seats) == 1:
        return set(session.human_seats)
    return {session.current_seat} if session.human_to_move else set()


class WebGame:
    """The session behind the page and the operations the API offers on it, under one lock.

    ``session_factory()`` makes a new :class:`PlaySession`; it is called once now and again
    for every "new game". Agents move only when asked (:meth:`advance`, one move a call).
    """

    get_paths = API_GET
    post_paths = API_POST

    def __init__(self, session_factory: Callable[[], Any], pace_ms: int = DEFAULT_PACE_MS):
        self._factory = session_factory
        self._lock = threading.Lock()
        #: counts changes of the position, so the page can ask for a fresh picture
        self._version = 0
        self._session = self._factory()
        self._view = board_view_of(self._session.game)
        self._rules = rules_text(self._session.game)
        self._pace_ms = pace_ms
        self._cached: tuple[int, dict[str, Any]] | None = None

    def _changed(self) -> None:
        self._version += 1

    @property
    def watching(self) -> bool:
        """True when agents play every seat."""
        return self._session.watching

    # ------------------------------------------------------------ routes
    def get(self, path: str, query: str) -> dict[str, Any] | tuple[bytes, str]:
        if path == "/api/state":
            return self.state()
        if path == "/api/position":
            return self.position()
        return self.picture_png(), "image/png"

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if path == "/api/move":
            return self.move(*move_from_body(body))
        if path == "/api/load":
            return self.load(position_from_body(body))
        only_keys(body, set(), path)
        if path == "/api/advance":
            return self.advance()
        if path == "/api/undo":
            return self.undo()
        if path == "/api/hint":
            return self.hint()
        return self.new_game()

    # ------------------------------------------------------------ reads
    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._state_locked()

    def _state_locked(self) -> dict[str, Any]:
        if self._cached is None or self._cached[0] != self._version:
            self._cached = (self._version, self._build_state())
        return self._cached[1]

    def _build_state(self) -> dict[str, Any]:
        s = self._session
        over = s.is_over
        human_to_move = (not over) and s.human_to_move
        legal = s.legal_moves() if human_to_move else []
        last = s.last_decision()
        fields = board_fields(self._view, s.state, shown_seats(s), None if last is None else (last[0], last[1].action))
        role = "you" if len(s.human_seats) == 1 else "human"
        roles = [role if seat in s.human_seats else "agent" for seat in range(s.num_players)]
        return {
            "mode": "watch" if s.watching else "play",
            "env_id": s.env_id,
            "options": jsonable(dict(s.options or {})),
            "num_players": int(s.num_players),
            "human_seats": [int(seat) for seat in s.human_seats],
            "players": players_json(fields["board"], s.seat_names, roles),
            "current_seat": int(s.current_seat),
            "human_to_move": bool(human_to_move),
            "agent_to_move": bool(not over and not human_to_move),
            "is_over": bool(over),
            "result": s.result() if over else None,
            "scores": jsonable(s.scores),
            # the game's running counts (stones, scores, flags...): the final ``scores`` are
            # zeros until the end
            "info": jsonable(s.state.info()),
            "legal_moves": [[int(a), text] for a, text in legal],
            "board_moves": move_choices(self._view, s.state, [a for a, _ in legal]),
            **fields,
            "moves": [_move_json(m) for m in s.moves],
            "board_text": s.render_text(),
            "notation_help": notation_help(s.env_id),
            "rules": self._rules,
            "docs_page": f"docs/envs/{s.env_id}.md",
            "pace_ms": self._pace_ms,
            "version": self._version,
        }

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


# ---------------------------------------------------------------- request bodies
def move_from_body(body: dict[str, Any]) -> tuple[str | int, int | None]:
    """The ``"move"`` of a POST /api/move body (a notation string or an action index) and
    its optional ``"version"``."""
    only_keys(body, {"move", "version"}, "/api/move")
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
    only_keys(body, {"position"}, "/api/load")
    position = body.get("position")
    if not isinstance(position, str) or not position.strip():
        raise RequestError(HTTPStatus.BAD_REQUEST, '/api/load needs {"position": the position text}')
    return position


# ---------------------------------------------------------------- starting it
def make_server(session_factory: Callable[[], Any], host: str = "127.0.0.1", port: int = 8000,
                quiet: bool = False, pace_ms: int = DEFAULT_PACE_MS) -> PlayServer:
    """A bound server over a new :class:`WebGame` (not yet serving); ``port=0`` picks a free port."""
    check_port(port)
    return bind(WebGame(session_factory, pace_ms), host, port, quiet)


def serve(session_factory: Callable[[], Any], host: str = "127.0.0.1", port: int = 8000,
          pace_ms: int = DEFAULT_PACE_MS) -> None:
    """Serve the play page at ``http://host:port/`` until interrupted (Ctrl+C)."""
    server = make_server(session_factory, host, port, pace_ms=pace_ms)
    serve_forever(server, "Watch" if server.app.watching else "Play")
