"""Train a self-play agent (MaskablePPO, or expert iteration with ``train.algorithm:
alphazero``), then evaluate it against the baselines.

    python -m training.train --config configs/sky_scrapers.yaml
    python -m training.train --config configs/sky_scrapers.yaml --timesteps 20000 --run-dir runs/demo
    python -m training.train --env highrise_heist_v0 --timesteps 100000  # the env's default config
    python -m training.train --resume runs/demo          # continue an interrupted run
    python -m training.train --config configs/recipes/golden_rush_v0/2_finetune_vs_greedy.yaml --init-from my_policy.pt  # fine-tune
    python -m training.train --recipe scala_v0 --dry-run   # rebuild a shipped agent: python -m training.recipe

Ends with an evaluation table (ratings and pairings) and writes the report files into the
run folder. Ctrl-C or SIGTERM saves the run so that ``--resume`` continues it (the command
then exits with 128 + the signal's number: 130 or 143).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from sky_envs.core.arguments import HelpFormatter, module_prog

from .alphazero import ExpertIterationRun
from .learner import Learner, LearnerClass
from .run_arguments import add_run_arguments, run_config
from .selfplay import SelfPlayRun
from .signals import TrainingInterrupted, interrupts_as_keyboard


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if recipe_args := recipe_arguments(args):   # --recipe ENV_ID, or --resume of a recipe run
        from .recipe import main as recipe_main

        return recipe_main(recipe_args, prog=f"{prog or module_prog(__spec__)} --recipe")
    parser = argparse.ArgumentParser(prog=prog or module_prog(__spec__), description=__doc__,
                                     formatter_class=HelpFormatter)
    add_run_arguments(parser, between=lambda parser: parser.add_argument(
        "--recipe", metavar="ENV_ID",
        help="rebuild the shipped agent of ENV_ID from nothing (every stage of its recipe, then ship and report): "
             "python -m training.recipe ENV_ID; its options follow (--dry-run, --stages, --budget-scale, "
             "--address, ...)"))
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-eval", action="store_true",
                        help="skip the final evaluation (e.g. to evaluate separately with training.evaluate)")
    args = parser.parse_args(argv)

    try:
        config, run_dir = run_config(args, stored_config)
        learner: LearnerClass = ExpertIterationRun if config["train"]["algorithm"] == "alphazero" else SelfPlayRun
        run: Learner = learner(config, run_dir, progress=not args.no_progress)
        run.command = f"{parser.prog} " + " ".join(shlex.quote(arg) for arg in (argv or sys.argv[1:]))
    except ValueError as error:
        parser.error(str(error))
    try:
        final = run.train(resume=bool(args.resume))
    except TrainingInterrupted as stop:  # Ctrl-C or SIGTERM: the run saved itself and said how to resume
        return 128 + stop.signum
    if not args.no_eval:
        try:
            with interrupts_as_keyboard():  # SIGTERM too stops the games and their worker processes
                run.evaluate(final)
        except TrainingInterrupted as stop:  # the run is saved: only the report is missing
            print(f"evaluation stopped by {stop}: evaluate {final} with {evaluate_prog(parser.prog)}", file=sys.stderr)
            return 128 + stop.signum
    return 0


def stored_config(run_dir: Path) -> dict:
    """The config a ``training.train`` run folder was started with."""
    state_file = run_dir / "run_state.json"
    if not state_file.is_file():
        raise ValueError(f"cannot resume: {str(state_file)!r} does not exist")
    return json.loads(state_file.read_text())["config"]


def recipe_arguments(args: list[str]) -> list[str] | None:
    """The arguments of ``training.recipe`` where ``args`` ask for a recipe (``--recipe ENV_ID
    ...``, or ``--resume`` of a recipe's run folder), else None."""
    from .recipe import STATE_FILE

    for at, arg in enumerate(args):
        if arg == "--recipe":
            return args[:at] + args[at + 1:]
        if arg.startswith("--recipe="):
            return args[:at] + [arg.partition("=")[2]] + args[at + 1:]
    if "--resume" in args and args.index("--resume") + 1 < len(args):
        if (Path(args[args.index("--resume") + 1]) / STATE_FILE).is_file():
            return args
    return None


def evaluate_prog(prog: str) -> str:
    """The evaluate command in the form the train command was typed."""
    return "sky-envs evaluate" if prog.startswith("sky-envs") else f"python -m {__package__}.evaluate"


if __name__ == "__main__":
    sys.exit(main())
