"""Watching recorded games: in the terminal, as a GIF, or in the browser.

    python -m sky_envs.replay games/policy-vs-greedy-game0003.json          # step through it
    python -m sky_envs.replay games/policy-vs-greedy-game0003.json --all    # print every position
    python -m sky_envs.replay games/policy-vs-greedy-game0003.json --gif game.gif [--fps 2] [--max-moves 30]
    python -m sky_envs.replay games/policy-vs-greedy-game0003.json --web    # in the browser, with a move slider
    python -m sky_envs.replay games --web                                   # a folder: the list of its games

Evaluation tournaments write replay files (``python -m training.evaluate ... --save-games DIR``);
their format, and the checks every replay passes, are :mod:`sky_envs.core.replay_file`.
There is no MP4 output: a video encoder is
not a dependency of this package (a GIF needs only Pillow, which the renderers use already).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from sky_envs.core.registry import make_game
from sky_envs.core.replay_file import ReplayError, load_replay, notation_matches, positions
from sky_envs.core.state import GameState

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


if __name__ == "__main__":
    sys.exit(main())
