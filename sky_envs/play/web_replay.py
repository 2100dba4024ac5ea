"""Recorded games in the browser: ``python -m sky_envs.replay FILE --web`` (one game) or
``python -m sky_envs.replay DIR --web`` (every replay file of an evaluation's
``--save-games`` folder, as a list to open).

The same page as for playing, over a :class:`ReplayLibrary`; the server checks requests as
:mod:`sky_envs.play.server` says. What it exposes, and nothing else:

* ``GET /api/state``: ``{"mode": "replays", "folder": name, "games": [...]}``, one entry per
  replay file (``{"name", "env_id", "players", "moves", "result"}``, or ``{"name", "error"}``
  for a file that is not a replay).
* ``GET /api/replay?game=NAME&index=K``: the game ``NAME`` (a name from that list, looked
  up in the table built at start-up, never joined to a path) after its first ``K`` moves
  (0: the start): the position as a scene to draw (every hand shown: a recorded game has no
  one to hide it from), its position text (``"position"``) and board text, the player and
  the move that led to it, every move of the game, the running counts and at the end the
  result in words. Files are replayed (and checked, as :func:`sky_envs.core.replay_file.positions`
  does) when first opened; a file that does not replay is answered 422 with the reason.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from http import HTTPStatus
from pathlib import Path
from typing import Any

from sky_envs.core.registry import make_game
from sky_envs.play.board import board_fields, board_view_of, players_json
from sky_envs.play.server import PlayServer, RequestError, bind, jsonable, parse_query, serve_forever
from sky_envs.play.terminal import notation_help
from sky_envs.play.web import rules_text
from sky_envs.core.replay_file import ReplayError, load_replay, positions

#: replays kept replayed in memory (the others are replayed again when reopened)
OPEN_GAMES_KEPT = 4


def replay_files(path: str | Path) -> list[Path]:
    """``path`` itself if it is a file, else the ``*.json`` files directly in that folder
    (sorted by name); ``ValueError`` if there is none."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ValueError(f"{path}: no such replay file or folder")
    files = sorted(p for p in path.iterdir() if p.suffix == ".json" and p.is_file())
    if not files:
        raise ValueError(f"{path}: the folder holds no replay files (*.json), such as "
                         "'python -m training.evaluate ... --save-games DIR' writes")
    return files


class ReplayLibrary:
    """Replay files by name, each shown position by position."""

    get_paths = {"/api/state", "/api/replay"}
    post_paths: set[str] = set()

    def __init__(self, files: list[Path], folder: str = ""):
        self._files = {path.name: path for path in files}
        self._folder = folder
        self._lock = threading.Lock()
        self._open: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._games = [self._summary(path) for path in files]

    @staticmethod
    def _summary(path: Path) -> dict[str, Any]:
        try:
            replay = load_replay(path)
        except ReplayError as error:
            return {"name": path.name, "error": str(error)}
        result = replay.get("result")
        return {"name": path.name, "env_id": replay["env_id"], "players": replay["players"],
                "moves": len(replay["moves"]), "result": result.get("text", "") if isinstance(result, dict) else ""}

    # ------------------------------------------------------------ routes
    def get(self, path: str, query: str) -> dict[str, Any]:
        if path == "/api/state":
            parse_query(query, set(), path)
            return {"mode": "replays", "folder": self._folder, "games": self._games}
        values = parse_query(query, {"game", "index"}, path)
        name = values.get("game", "")
        if name not in self._files:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no replay named {name[:80]!r}: "
                               f"expected one of {sorted(self._files)[:20]}")
        raw = values.get("index", "0")
        if not raw.isdigit() or len(raw) > 6:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"index must be a move number 0, 1, 2 ..., got {raw[:20]!r}")
        return self.view(name, int(raw))

    # ------------------------------------------------------------ the games
    def _opened(self, name: str) -> dict[str, Any]:
        with self._lock:
            if name in self._open:
                self._open.move_to_end(name)
                return self._open[name]
        try:
            replay = load_replay(self._files[name])
            states = [state for state, _ in positions(replay)]
        except ReplayError as error:
            raise RequestError(HTTPStatus.UNPROCESSABLE_ENTITY, f"{name} does not replay: {error}") from None
        game = make_game(replay["env_id"], **replay["options"])
        opened = {"replay": replay, "states": states, "view": board_view_of(game), "rules": rules_text(game)}
        with self._lock:
            self._open[name] = opened
            while len(self._open) > OPEN_GAMES_KEPT:
                self._open.popitem(last=False)
        return opened

    def view(self, name: str, index: int) -> dict[str, Any]:
        """The game ``name`` after ``index`` moves, as the page shows it."""
        opened = self._opened(name)
        replay, states, view = opened["replay"], opened["states"], opened["view"]
        if index >= len(states):
            raise RequestError(HTTPStatus.BAD_REQUEST, f"{name} has moves 0..{len(states) - 1}, not {index}")
        state = states[index]
        moves = replay["moves"]
        names = [str(p) for p in replay["players"]] + ["?"] * max(0, state.num_players - len(replay["players"]))
        last = None if index == 0 else (states[index - 1], moves[index - 1]["action"])
        fields = board_fields(view, state, None, last)
        over = index == len(states) - 1
        result = replay.get("result") if over else None
        return {
            "mode": "replay",
            "game": name,
            "index": index,
            "count": len(states),
            "env_id": replay["env_id"],
            "options": jsonable(replay["options"]),
            "seed": replay["seed"],
            "num_players": int(state.num_players),
            "players": players_json(fields["board"], names[:state.num_players], ["agent"] * state.num_players),
            "current_seat": int(state.current_player),
            "is_over": bool(over and state.current_player < 0),
            "result": result.get("text", "") if isinstance(result, dict) else None,
            "scores": [float(r) for r in state.returns()],
            "info": jsonable(state.info()),
            **fields,
            "moves": [{"seat": m["seat"], "action": m["action"], "text": m["text"],
                       "by": names[m["seat"]] if m["seat"] < len(names) else "?"} for m in moves],
            "position": state.to_text(),
            "board_text": state.render_text(),
            "notation_help": notation_help(replay["env_id"]),
            "rules": opened["rules"],
            "docs_page": f"docs/envs/{replay['env_id']}.md",
            "version": index,
        }


def make_replay_server(path: str | Path, host: str = "127.0.0.1", port: int = 8000,
                       quiet: bool = False) -> PlayServer:
    """A bound server over the replays at ``path`` (a file or a folder); ``port=0`` picks a free port."""
    files = replay_files(path)
    return bind(ReplayLibrary(files, Path(path).name), host, port, quiet)

