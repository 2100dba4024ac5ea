"""The replay file format: a recorded game as JSON, written by tournaments and read back
move by move with every check (the front ends that show replays are :mod:`sky_envs.replay`
and :mod:`sky_envs.play.web_replay`).

A file is JSON::

    {"format": "sky_envs-replay", "version": 1, "env_id": "scala_v0", "options": {...},
     "seed": 3,                      # the set-up seed (null when the game began from "start" alone)
     "players": ["random", "greedy"],
     "start": "<position text>", "moves": [{"seat": 0, "action": 1190, "text": "e5-d4"}, ...],
     "final": "<position text>", "result": {"returns": [1.0, -1.0], "text": "player_0 wins after 23 moves"}}

Replaying rebuilds the start (from the seed when there is one, so chance events during play
repeat exactly, and checks it against ``start``), plays every move (each must be legal and
read as its ``text``), and checks the end against ``final``; a file that fails any check
raises :class:`ReplayError` naming the problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from sky_envs.core.registry import canonical_id, env_ids, make_game
from sky_envs.core.state import GameState

FORMAT, VERSION = "sky_envs-replay", 1


class ReplayError(ValueError):
    """A replay file that is not one, or whose moves do not replay."""


def start_state(game, seed: int | None, start: str | None = None) -> GameState:
    """The first position of a game: the seeded set-up (as tournaments deal it) or ``start``."""
    if seed is not None:
        return game.new_initial_state(np.random.default_rng(seed))
    return game.state_from_text(start, rng=np.random.default_rng(0))


def record(env_id: str, options: dict, seed: int | None, players: list[str], start: str,
           moves: list[dict], state: GameState) -> dict:
    """The replay of a finished game: ``moves`` as ``{"seat", "action", "text"}``, ``state`` its end."""
    returns = state.returns() if state.is_terminal() else np.zeros(state.num_players)
    if state.is_terminal():
        best = [f"player_{s}" for s, r in enumerate(returns) if r == returns.max()]
        text = "draw" if len(best) == len(returns) else " and ".join(best) + (" wins" if len(best) == 1 else " win")
    else:
        text = "draw (cut at the turn limit)"
    return {"format": FORMAT, "version": VERSION, "env_id": env_id, "options": options, "seed": seed,
            "players": players, "start": start, "moves": moves, "final": state.to_text(),
            "result": {"returns": [float(r) for r in returns], "text": f"{text} after {len(moves)} moves"}}


def write_replay(replay: dict, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(replay, indent=1) + "\n")
    return path


def load_replay(path: str | Path) -> dict:
    """Read and check a replay file's fields (the moves are checked by :func:`positions`)."""
    try:
        replay = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReplayError(f"{path}: not a readable JSON replay file ({error})") from None
    if not isinstance(replay, dict) or replay.get("format") != FORMAT:
        got = replay.get("format") if isinstance(replay, dict) else type(replay).__name__
        raise ReplayError(f"{path}: format tag {got!r}, expected {FORMAT!r}")
    if replay.get("version") != VERSION:
        raise ReplayError(f"{path}: version {replay.get('version')!r}, this package reads version {VERSION}")
    env_id = replay.get("env_id")
    if not isinstance(env_id, str) or canonical_id_or_none(env_id) not in env_ids():
        raise ReplayError(f"{path}: unknown env {env_id!r}, expected one of {env_ids()}")
    fields = {"options": dict, "start": str, "final": str, "moves": list, "players": list}
    for key, kind in fields.items():
        if not isinstance(replay.get(key), kind):
            raise ReplayError(f"{path}: field {key!r} must be a {kind.__name__}, got {replay.get(key)!r}")
    if replay.get("seed") is not None and not isinstance(replay["seed"], int):
        raise ReplayError(f"{path}: field 'seed' must be an integer or null, got {replay['seed']!r}")
    for k, move in enumerate(replay["moves"]):
        if not (isinstance(move, dict) and isinstance(move.get("action"), int) and isinstance(move.get("text"), str)
                and isinstance(move.get("seat"), int)):
            raise ReplayError(f"{path}: move {k + 1} is {move!r}, expected {{'seat': int, 'action': int, 'text': str}}")
    return replay


def canonical_id_or_none(env_id: str) -> str | None:
    try:
        return canonical_id(env_id)
    except ValueError:
        return None


def positions(replay: dict) -> Iterator[tuple[GameState, dict | None]]:
    """Each position of the game with the move that led to it (``None`` for the start),
    checking the file on the way (:class:`ReplayError` at the first inconsistency)."""
    try:
        game = make_game(replay["env_id"], **replay["options"])
        state = start_state(game, replay["seed"], replay["start"])
    except ValueError as error:
        raise ReplayError(f"the replay's game cannot be set up: {error}") from None
    if state.to_text() != replay["start"].strip():
        raise ReplayError("the start position of the replay is not the one its seed deals")
    yield state, None
    for k, move in enumerate(replay["moves"]):
        state = state.clone()
        where = f"move {k + 1} ({move['text']!r}, action {move['action']})"
        if state.current_player != move["seat"]:
            raise ReplayError(f"{where}: recorded for player_{move['seat']} but player_{state.current_player} is to move")
        try:
            state.apply(move["action"])
        except ValueError as error:
            raise ReplayError(f"{where} is illegal: {error}") from None
        yield state, move
    if state.to_text() != replay["final"].strip():
        raise ReplayError("after its moves the game is not in the replay's final position")


def notation_matches(replay: dict) -> None:
    """Check every recorded ``text`` is the notation of its action (:class:`ReplayError` if not)."""
    previous = None
    for state, move in positions(replay):
        if move is not None and previous.action_to_string(move["action"]) != move["text"]:
            raise ReplayError(f"move {move['text']!r} is recorded as action {move['action']}, which reads "
                              f"{previous.action_to_string(move['action'])!r}")
        previous = state


def replay_name(*parts: Any) -> str:
    """A file name from agent names and numbers (odd characters become ``_``)."""
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", "-".join(map(str, parts)))
