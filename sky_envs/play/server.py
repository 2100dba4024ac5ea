"""The HTTP side of the play page: a standard-library threading server, the page's fixed
files, and the checks every request passes before it reaches the app behind it.

An *app* (:class:`~sky_envs.play.web.WebGame` for playing and watching,
:class:`~sky_envs.play.web_replay.ReplayLibrary` for recorded games) declares the paths it
answers (``get_paths``, ``post_paths``) and answers them (``get(path, query)``: a dict sent
as JSON or ``(bytes, content type)``; ``post(path, body)``: a dict). Everything else is here:

* ``GET /`` and ``GET /static/play.js``, ``play.css``, ``icon.svg``: a fixed table of files read
  once from the package at start-up. Request paths are looked up in that table and in the
  app's paths as whole strings, never percent-decoded or joined to a directory, so no request
  reads any other file (``/static/../x``, ``/%2e%2e/x`` and the like are simply unknown: 404).
* POST bodies must be JSON objects of at most :data:`MAX_BODY_BYTES` (sent as
  ``application/json``, which a page of another site cannot do without the browser asking
  first), with exactly the keys the app documents; a query string is read only where the app
  documents one (:func:`parse_query`), key by key.
* A malformed request gets 400 with ``{"error": message}`` (and the app's own refusals their
  status: 409, 422 ...), an unknown path 404, a known path with the wrong method 405, a body
  too big 413, a non-JSON body 415. A bug answers 500 without a traceback and is logged.
* On a loopback address the ``Host`` header must name a loopback host too (a page of another
  site reaching the server by DNS rebinding gets 403).
* A connection silent for :data:`SOCKET_TIMEOUT_S` is dropped, so a stalled client holds no
  thread for ever; each connection is served in its own thread.
"""

from __future__ import annotations

import json
import socket
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from ipaddress import ip_address
from typing import Any
from urllib.parse import parse_qsl

import numpy as np

#: largest POST body accepted (a position text is well under 4 KiB in every game)
MAX_BODY_BYTES = 64 * 1024
#: longest query string accepted
MAX_QUERY_CHARS = 512
#: seconds a connection may stay silent before the server drops it
SOCKET_TIMEOUT_S = 30

#: request path -> (file in sky_envs/play/static, content type); the only files served
STATIC_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/static/play.js": ("play.js", "text/javascript; charset=utf-8"),
    "/static/play.css": ("play.css", "text/css; charset=utf-8"),
    "/static/icon.svg": ("icon.svg", "image/svg+xml"),
}

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


def jsonable(value: Any) -> Any:
    """``value`` with numpy arrays and scalars turned into plain lists and numbers."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


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


def only_keys(body: dict[str, Any], allowed: set[str], path: str) -> None:
    """:class:`RequestError` (400) naming any key of ``body`` not in ``allowed``."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        expected = ", ".join(f'"{k}"' for k in sorted(allowed)) or "no fields"
        raise RequestError(HTTPStatus.BAD_REQUEST, f"{path}: unexpected field(s) {unknown}; expected {expected}")


def parse_query(query: str, allowed: set[str], path: str) -> dict[str, str]:
    """A query string (``game=a.json&index=3``) as a dict: each key at most once, only the
    ``allowed`` keys, values as given (percent-decoded); :class:`RequestError` (400) otherwise."""
    if len(query) > MAX_QUERY_CHARS:
        raise RequestError(HTTPStatus.BAD_REQUEST, f"{path}: the query is longer than {MAX_QUERY_CHARS} characters")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query), errors="strict",
                          max_num_fields=len(allowed) + 4)
    except (ValueError, UnicodeDecodeError) as error:
        raise RequestError(HTTPStatus.BAD_REQUEST, f"{path}: a malformed query ({error})") from None
    values: dict[str, str] = {}
    for key, value in pairs:
        if key in values:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"{path}: {key!r} is given twice")
        values[key] = value
    only_keys(values, allowed, path)
    return values


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


def _load_static_files() -> dict[str, tuple[bytes, str]]:
    folder = resources.files("sky_envs.play") / "static"
    return {path: ((folder / name).read_bytes(), ctype) for path, (name, ctype) in STATIC_FILES.items()}


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
        app = self.server.app
        try:
            self._check_host()
            path, query = self._route_path()
            if path in STATIC_FILES or path in app.get_paths:
                if method != "GET":
                    self._discard_body()
                    raise RequestError(HTTPStatus.METHOD_NOT_ALLOWED, f"{path} accepts GET only")
                self._get(path, query)
            elif path in app.post_paths:
                if method != "POST":
                    self._discard_body()
                    raise RequestError(HTTPStatus.METHOD_NOT_ALLOWED, f"{path} accepts POST only")
                self._send_json(HTTPStatus.OK, app.post(path, self._read_json_body()))
            else:
                self._discard_body()
                raise RequestError(HTTPStatus.NOT_FOUND, f"no such page: {path[:100]!r}")
        except RequestError as error:
            self._send_json(error.status, {"error": error.message})
        except Exception as error:  # a bug must not kill the thread silently or leak a traceback
            self.log_error("internal error on %s %s: %r", method, self.path[:200], error)
            self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(error).__name__}"})

    def _route_path(self) -> tuple[str, str]:
        """The request target's path, compared as it came (never percent-decoded or
        normalised, so ``..`` and ``%2e%2e`` only ever miss the tables), and its query."""
        target = self.path.split("#", 1)[0]
        path, _, query = target.partition("?")
        return path, query

    def _check_host(self) -> None:
        if not self.server.loopback_only:
            return
        host = _host_name(self.headers.get("Host", ""))
        if not _is_loopback(host):
            self.close_connection = True
            raise RequestError(HTTPStatus.FORBIDDEN, "this server answers requests for localhost only")

    def _get(self, path: str, query: str) -> None:
        if path in STATIC_FILES:
            body, ctype = self.server.static_files[path]
            self._send(HTTPStatus.OK, body, ctype)
            return
        answer = self.server.app.get(path, query)
        if isinstance(answer, dict):
            self._send_json(HTTPStatus.OK, answer)
        else:
            self._send(HTTPStatus.OK, *answer)

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
            self.send_header("Allow", "POST" if self._route_path()[0] in self.server.app.post_paths else "GET")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class PlayServer(ThreadingHTTPServer):
    """The HTTP server with its app and the page's files."""

    daemon_threads = True
    request_queue_size = 64     # many tabs or clients connecting at once are queued, not refused

    def __init__(self, address: tuple[str, int], app: Any, quiet: bool = False):
        self.app = app
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


def check_port(port: Any) -> int:
    """``port`` if it is a TCP port number (0: any free port), else ``ValueError``."""
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer from 0 to 65535, got {port!r}")
    return port


def bind(app: Any, host: str = "127.0.0.1", port: int = 8000, quiet: bool = False) -> PlayServer:
    """A bound :class:`PlayServer` over ``app`` (not yet serving); ``port=0`` picks a free port."""
    return PlayServer((host, check_port(port)), app, quiet=quiet)


def serve_forever(server: PlayServer, what: str) -> None:
    """Serve until interrupted (Ctrl+C), saying where; ``what`` names it ("Play", "Watch" ...)."""
    host = server.server_address[0]
    if not server.loopback_only:
        print(f"warning: {host} is not a loopback address; anyone who can reach it can use "
              "this server", file=sys.stderr)
    print(f"{what} in your browser: {server.url}  (Ctrl+C stops the server)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
