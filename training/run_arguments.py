"""The command-line arguments that say which run to train, shared by ``training.train`` and
``training.rllib``: a new run from ``--config FILE`` or ``--env ENV_ID`` (into ``--run-dir`` or
``runs/<env>-<time>``), or ``--resume RUN_DIR``, with ``--timesteps``, ``--eval-games`` and
``--init-from`` overriding the config's values."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from sky_envs.agents.pretrained import default_config

from .config import load_config, resumed_config
from .selfplay import default_run_dir


def add_run_arguments(parser: argparse.ArgumentParser, timesteps_help: str = "override train.timesteps",
                      between: Callable[[argparse.ArgumentParser], None] | None = None) -> None:
    """``--config``, ``--env``, ``--run-dir``, ``--resume``, then (after what ``between`` adds)
    ``--timesteps``, ``--eval-games``, ``--init-from``."""
    parser.add_argument("--config", help="a YAML file in configs/ (not needed with --resume)")
    parser.add_argument("--env", help="train with the env's default config configs/<game>.yaml (instead of --config)")
    parser.add_argument("--run-dir", help="where the run is written (default: runs/<env>-<time>)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in this folder")
    if between is not None:
        between(parser)
    parser.add_argument("--timesteps", type=int, help=timesteps_help)
    parser.add_argument("--eval-games", type=int, help="override eval.games (games per pairing)")
    parser.add_argument("--init-from", metavar="CHECKPOINT",
                        help="override train.init_from: start the network from this checkpoint's weights")


def run_config(args: argparse.Namespace, stored_config: Callable[[Path], dict]) -> tuple[dict, Path]:
    """The config and run folder the arguments ask for: a resumed run's config comes from
    ``stored_config(run_dir)`` (which raises ``ValueError`` where the folder cannot be
    resumed). ``ValueError`` for arguments that do not go together."""
    overrides = {key: value for key, value in (("train.timesteps", args.timesteps), ("eval.games", args.eval_games),
                                               ("train.init_from", args.init_from)) if value is not None}
    if args.resume:
        if args.init_from is not None:
            raise ValueError("--init-from starts a new run; a resumed run continues from its own weights")
        run_dir = Path(args.resume)
        return resumed_config(stored_config(run_dir), **overrides), run_dir
    if args.config and args.env:
        raise ValueError("give --config FILE or --env ENV_ID, not both")
    if not (args.config or args.env):
        raise ValueError("give --config FILE or --env ENV_ID (or --resume RUN_DIR)")
    config = load_config(args.config or default_config(args.env), **overrides)
    return config, Path(args.run_dir) if args.run_dir else default_run_dir(config["env"]["id"])
