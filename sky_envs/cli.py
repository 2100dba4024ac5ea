"""The ``sky-envs`` command: each subcommand is the same as its ``python -m`` form.

    sky-envs train --env highrise_heist_v0 --timesteps 100000   # python -m training.train
    sky-envs train --recipe scala_v0                            # python -m training.recipe: a shipped agent rebuilt
    sky-envs evaluate --env scala_v0 --agents pretrained greedy  # python -m training.evaluate
    sky-envs paired cand.games.jsonl shipped.games.jsonl        # python -m training.paired
    sky-envs play --env scala_v0 --opponent pretrained@200      # python -m sky_envs.play
    sky-envs play --env scala_v0 --web --watch pretrained greedy # agents against each other, in the browser
    sky-envs replay games/policy-vs-greedy-game0000.json         # python -m sky_envs.replay
    sky-envs replay games --web                                  # an evaluation's saved games, in the browser
    sky-envs demo --env scala_v0                                 # python -m sky_envs.demo
    sky-envs bench scala_v0                                      # python benchmarks/throughput.py
    sky-envs bench-vector --num-envs 1024 scala_v0               # python benchmarks/vector_throughput.py

``sky-envs SUBCOMMAND --help`` shows each one's options.
"""

from __future__ import annotations

import importlib
import sys

#: subcommand -> (module, what it does); training and benchmarks are ``sky_envs.training``
#: and ``sky_envs.benchmarks`` when installed, the clone's top-level packages otherwise
COMMANDS = {
    "train": ("training.train", "train a self-play agent, then evaluate it"),
    "evaluate": ("training.evaluate", "a round robin between agents, with ratings"),
    "paired": ("training.paired", "two agents' evaluations against one opponent compared game for game"),
    "play": ("sky_envs.play.__main__", "play against an agent in the terminal or the browser, or watch agents"),
    "replay": ("sky_envs.replay", "watch recorded games in the terminal or the browser, or write a GIF"),
    "demo": ("sky_envs.demo", "a short random game rendered as text"),
    "bench": ("benchmarks.throughput", "engine speed, side by side with PettingZoo's connect_four_v3"),
    "bench-vector": ("benchmarks.vector_throughput", "batched games (sky_envs.vector): decisions/s beside "
                     "connect four in PettingZoo, OpenSpiel and pgx"),
}


def _module(name: str):
    if name.startswith(("training.", "benchmarks.")):
        try:
            return importlib.import_module(f"sky_envs.{name}")
        except ModuleNotFoundError as error:
            if not (error.name or "").startswith(f"sky_envs.{name.split('.')[0]}"):
                raise
            # a checkout used without installing it: its top-level package
    return importlib.import_module(name)


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    return "usage: sky-envs SUBCOMMAND [OPTIONS]\n\n" + __doc__.strip() + "\n\nsubcommands:\n" + "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"{usage()}\n\nsky-envs: error: unknown subcommand {name!r}: expected one of {list(COMMANDS)}",
              file=sys.stderr)
        return 2
    result = _module(COMMANDS[name][0]).main(rest, prog=f"sky-envs {name}")
    return result or 0


if __name__ == "__main__":
    sys.exit(main())
