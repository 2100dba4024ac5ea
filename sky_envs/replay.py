"""Recorded games: the replay file format, and watching one in the terminal or as a GIF.

    python -m sky_envs.replay games/policy-vs-greedy-game0003.json          # step through it
    python -m sky_envs.replay games/policy-vs-greedy-game0003.json --all    # print every position
    python -m sky_envs.replay games/policy-vs-greedy-game0003.json --gif game.gif [--fps 2] [--max-moves 30]
    python -m sky_envs.replay games/policy-vs-greedy-game0003.json --web    # in the browser, with a move slider
    python -m sky_envs.replay games --web                                   # a folder: the list of its games

Evaluation tournaments write these files (``python -m training.evaluate ... --save-games DIR``).
A file is JSON::

    {"format": "sky_envs-replay", "version": 1, "env_id": "scala_v0", "options": {...},
     "seed": 3,                      # the set-up seed (null when the game began from "start" alone)
     "players": ["random", "greedy"],
     "start": "<position text>", "moves": [{"seat": 0, "action": 1190, "text": "e5-d4"}, ...],
     "final": "<position text>", "result": {"returns": [1.0, -1.0], "text": "player_0 wins after 23 moves"}}

Replaying rebuilds the start (from the seed when there is one, so chance events during play
repeat exactly, and checks it against ``start``), plays every move (each must be legal and
read as its ``text``), and checks the end against ``final``; a file that fails any check
raises :class:`ReplayError` naming the problem. There is no MP4 output: a video encoder is
not a dependency of this package (a GIF needs only Pillow, which the renderers use already).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
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


def frames(replay: dict, max_moves: int | None = None) -> list[np.ndarray]:
    """The ``rgb_array`` picture of the start and of each position after a move, padded to one size."""
    game = make_game(replay["env_id"], **replay["options"])
    pictures = []
    for k, (state, _) in enumerate(positions(replay)):
        if max_moves is not None and k > max_moves:
            break
        pictures.append(game.render_rgb(state))
    height = max(p.shape[0] for p in pictures)
    width = max(p.shape[1] for p in pictures)
    padded = []
    for picture in pictures:
        canvas = np.full((height, width, 3), 255, dtype=np.uint8)
        canvas[:picture.shape[0], :picture.shape[1]] = picture
        padded.append(canvas)
    return padded


def write_gif(replay: dict, out: str | Path, fps: float = 2.0, max_moves: int | None = None,
              scale: float = 1.0) -> int:
    """An animated GIF of the game (the last frame held longer); returns the frame count."""
    from PIL import Image

    pictures = frames(replay, max_moves)
    images = [Image.fromarray(p) for p in pictures]
    if scale != 1.0:
        size = (max(1, round(images[0].width * scale)), max(1, round(images[0].height * scale)))
        images = [image.resize(size, Image.LANCZOS) for image in images]
    palette = images[-1].quantize(colors=64)    # one palette for every frame keeps the file small
    images = [image.quantize(palette=palette, dither=Image.Dither.NONE) for image in images]
    durations = [round(1000 / fps)] * len(images)
    durations[-1] *= 4
    images[0].save(out, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)
    return len(images)


def describe(replay: dict, state: GameState, move: dict | None, index: int) -> str:
    total = len(replay["moves"])
    players = replay["players"]
    if move is None:
        head = f"start of {replay['env_id']} {replay['options']} seed={replay['seed']}: " + \
               ", ".join(f"player_{s}={name}" for s, name in enumerate(players))
    else:
        who = players[move["seat"]] if move["seat"] < len(players) else "?"
        head = f"move {index}/{total}: player_{move['seat']} ({who}) plays {move['text']}"
    tail = f"\nresult: {replay['result'].get('text', '')}" if index == total and isinstance(replay.get("result"), dict) else ""
    return f"{head}\n{state.render_text()}{tail}"


def step_through(replay: dict, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
    """Show the positions one by one: Enter or ``n`` next, ``b`` back, a number jumps, ``q`` quits."""
    shown = list(positions(replay))
    index = 0
    while True:
        write(describe(replay, *shown[index], index))
        try:
            answer = read("[Enter] next, b back, NUMBER jump, q quit> ").strip().lower()
        except EOFError:
            return
        if answer in ("q", "quit"):
            return
        if answer in ("b", "back"):
            index = max(0, index - 1)
        elif answer.isdigit():
            index = min(int(answer), len(shown) - 1)
        elif answer in ("", "n", "next"):
            if index == len(shown) - 1:
                return
            index += 1
        else:
            write(f"{answer!r}: expected Enter, n, b, a move number or q")


def main(argv: list[str] | None = None, prog: str = "python -m sky_envs.replay") -> int:
    from sky_envs.core.arguments import HelpFormatter

    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("file", help="a replay file (JSON) written by --save-games; with --web also a folder of them")
    parser.add_argument("--all", action="store_true", help="print every position, no prompts")
    parser.add_argument("--gif", metavar="OUT.gif", help="write an animated GIF instead")
    parser.add_argument("--fps", type=float, default=2.0, help="GIF frames per second")
    parser.add_argument("--max-moves", type=int, help="GIF: stop after this many moves")
    parser.add_argument("--scale", type=float, default=1.0, help="GIF: resize the pictures by this factor")
    parser.add_argument("--web", action="store_true", help="watch in the browser (a folder: choose among its games)")
    parser.add_argument("--host", default="127.0.0.1", help="--web: address the server binds (127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="--web: the server's port")
    args = parser.parse_args(argv)
    folder = args.web and Path(args.file).is_dir()
    try:
        if not folder:
            replay = load_replay(args.file)
            notation_matches(replay)
        if args.fps <= 0 or args.scale <= 0 or (args.max_moves is not None and args.max_moves < 0):
            raise ReplayError("--fps and --scale must be positive and --max-moves >= 0")
    except ReplayError as error:
        parser.error(str(error))
    if args.web:
        from sky_envs.play.server import serve_forever
        from sky_envs.play.web_replay import make_replay_server

        try:
            server = make_replay_server(args.file, args.host, args.port)
        except (OSError, ValueError) as error:
            parser.error(str(error))
        serve_forever(server, "Watch the replays" if folder else "Watch the replay")
        return 0
    if args.gif:
        count = write_gif(replay, args.gif, args.fps, args.max_moves, args.scale)
        print(f"{args.gif}: {count} frames")
    elif args.all:
        for index, (state, move) in enumerate(positions(replay)):
            print(describe(replay, state, move, index) + "\n")
    else:
        step_through(replay)
    return 0


def replay_name(*parts: Any) -> str:
    """A file name from agent names and numbers (odd characters become ``_``)."""
    import re

    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", "-".join(map(str, parts)))


if __name__ == "__main__":
    sys.exit(main())
