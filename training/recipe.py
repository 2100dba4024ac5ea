"""Rebuild a shipped agent from nothing: every stage of its recipe in order, then ship and report.

    python -m training.recipe scala_v0                      # every stage, the shipped file, its reports
    python -m training.recipe scala_v0 --dry-run            # the plan: each step's command, its cost here
    python -m training.recipe --resume runs/recipe-scala_v0-20261204-101500
    python -m training.recipe sky_scrapers_v0 --budget-scale 0.001   # a quick smoke of the whole chain
    python -m training.recipe sky_scrapers_v0 --stages 1..4  # only those stages (--resume for the rest)
    python -m training.recipe scala_v0 --address HEAD:6379   # each step as a Ray task on a cluster
    sky-envs train --recipe scala_v0                         # the same

The recipe is ``configs/recipes/<env_id>/recipe.yaml`` (:mod:`training.recipe_file`; or give a
recipe file's path). Everything happens in one run folder (``--run-dir``, default
``runs/recipe-<env_id>-<time>``)::

    recipe.json            the recipe as it was read, the budget scale, the steps done and their seconds
    01_<stage>/            stage 1's training.train run: config.yaml (the stage's config with its
                           budget and inputs filled in), checkpoints, final.pt, shipped.pt (with ship:)
    02_<stage>/ ...
    board_free/            start.pt, made from shipped/policy.pt by training.board_free (a recipe
                           with board_free: only)
    shipped/               policy.pt (and board_free's file) and the reports: the same files as
                           checkpoints/<env_id>/

Each step is an ordinary command (``training.train``, ``training.ship``, ``training.evaluate``),
run in this process (or as a Ray task) and printed before it runs, so any step can be rerun by
hand. Ctrl-C or SIGTERM stops the step at its own safe point (a training run saves itself, an
evaluation keeps its games) and exits with 128 + the signal's number; ``--resume RUN_DIR``
continues at the step where it stopped: a started stage with ``training.train --resume``
(expert iteration replays the unfinished iteration exactly; PPO collects the interrupted
rollout again from new games, so its weights then differ from an uninterrupted run's), an
evaluation with ``--resume`` (its recorded games count). ``recipe.json`` is written
atomically after every step.

``--budget-scale F`` multiplies every stage's budget and every report's games by F (each stage
still runs at least one rollout or iteration): a smoke test of the whole chain. A rerun with
the same recipe and scale on the same machine gives the same weights bit for bit wherever the
learner is deterministic: expert iteration and PPO with ``train.processes: 1`` and torch on
one thread (every stage runs with ``train.torch_threads: 1``, ``train.precision: float32`` and
``train.fused_adam: false``, whatever its config file says; tested), uninterrupted, or interrupted only
between stages or inside expert-iteration stages. Not promised: a PPO stage resumed from inside
(new games after the stop), and several torch threads or worker processes (a tiny recipe
reran bit for bit with two of either, but threaded sums need not keep their order on larger
networks). Checkpoint files still differ in their metadata (the command, the wall-clock
seconds).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from sky_envs.agents import split_spec
from sky_envs.core.arguments import HelpFormatter, module_prog
from .config import load_config
from .recipe_file import SHIP_OPTIONS, SHIPPED_NAME, Recipe, Stage, config_path, load_recipe, recipe_from_dict
from .run_folder import STATE, atomic_write
from .signals import deferred_interrupts, interrupts_as_keyboard

STATE_FILE = "recipe.json"
SHIPPED = "shipped"
BOARD_FREE = "board_free"   # the step (and folder) that makes the recipe's second network
PACKAGE = __package__  # "training" in the clone, "sky_envs.training" installed


@dataclass(frozen=True)
class Step:
    """One command of a recipe run."""

    key: str                     # unique within the run: "train 01_name", "ship 01_name", "ship", "report STEM"
    module: str                  # the module whose main(argv) runs it
    argv: list[str]
    started: Path | None = None  # a file that exists once the step has begun (then resume_argv continues it)
    resume_argv: list[str] | None = None
    cost_s: float | None = None  # its wall-clock cost here, where measured (scaled by the budget scale)
    stage: int | None = None     # the stage's number (1-based) for the steps of a stage

    def command(self, resume: bool = False) -> str:
        argv = self.resume_argv if resume and self.resume_argv is not None else self.argv
        return f"python -m {self.module} " + shlex.join(argv)


def stage_folder(run_dir: Path, number: int, stage: Stage) -> Path:
    return run_dir / f"{number:02d}_{stage.name}"


def stage_output(run_dir: Path, recipe: Recipe, name: str) -> Path:
    """The network a stage hands on: its shipped copy with ``ship:``, else its ``final.pt``."""
    number, stage = next((k, s) for k, s in enumerate(recipe.stages, 1) if s.name == name)
    return stage_folder(run_dir, number, stage) / ("shipped.pt" if stage.ship else "final.pt")


#: torch's threads in every stage: the setting under which a rerun gives the same weights bit for bit
RECIPE_TORCH_THREADS = 1
#: every stage's ``train.precision``: the shipped networks were trained in float32
RECIPE_PRECISION = "float32"
#: every stage's ``train.fused_adam``: the shipped networks were trained with torch's per-tensor Adam
RECIPE_FUSED_ADAM = False


def scaled(count: int, scale: float, least: int = 1) -> int:
    return max(least, round(count * scale))


def stage_config(recipe: Recipe, number: int, run_dir: Path, scale: float) -> dict:
    """Stage ``number``'s config file as written into its folder: the recipe's config with its
    budget (``train.timesteps``) and its inputs (``train.init_from``, ``alphazero.expert``) set
    to earlier stages' outputs, as absolute paths (a resumed expert-iteration run reads its
    expert again, from wherever it is resumed), and torch on :data:`RECIPE_TORCH_THREADS`
    threads in float32 with the per-tensor Adam (:data:`RECIPE_PRECISION`,
    :data:`RECIPE_FUSED_ADAM`; a default config may ask for more threads, bfloat16 or the
    fused Adam, for speed)."""
    stage = recipe.stages[number - 1]
    data = yaml.safe_load(stage.config_path.read_text())
    train = data.setdefault("train", {})
    train["timesteps"] = scaled(stage.budget, scale)
    train["torch_threads"] = RECIPE_TORCH_THREADS
    train["precision"] = RECIPE_PRECISION
    train["fused_adam"] = RECIPE_FUSED_ADAM
    origin = Path(run_dir).resolve()
    train["init_from"] = str(stage_output(origin, recipe, stage.init_from)) if stage.init_from else None
    if stage.expert:
        name, simulations = stage.expert.rsplit("@", 1)
        data.setdefault("alphazero", {})["expert"] = f"{stage_output(origin, recipe, name)}@{simulations}"
    return data


def ship_options(settings: dict) -> list[str]:
    options = []
    for key, value in settings.items():
        flag = SHIP_OPTIONS[key]
        if isinstance(value, bool):
            options.append(flag if value else "--no-" + flag.removeprefix("--"))
        else:
            options += [flag, str(value)]
    return options


def plan(recipe: Recipe, run_dir: Path, scale: float = 1.0, workers: int = 1, progress: bool = False) -> list[Step]:
    """Every step of a run of ``recipe`` in ``run_dir``, in order."""
    steps = []
    positions = ["--positions", str(scaled(2000, scale, least=16))] if scale < 1 else []
    for number, stage in enumerate(recipe.stages, 1):
        folder = stage_folder(run_dir, number, stage)
        tail = ["--no-eval"] + ([] if progress else ["--no-progress"])
        cost = None if stage.wall_clock_s is None else stage.wall_clock_s * scale
        steps.append(Step(f"train {folder.name}", f"{PACKAGE}.train",
                          ["--config", str(folder / "config.yaml"), "--run-dir", str(folder), *tail],
                          folder / STATE, ["--resume", str(folder), *tail], cost, number))
        if stage.ship:
            steps.append(Step(f"ship {folder.name}", f"{PACKAGE}.ship",
                              [str(folder / "final.pt"), str(folder / "shipped.pt"), *positions,
                               *ship_options(stage.ship)], stage=number))
    out = run_dir / SHIPPED
    steps.append(Step("ship", f"{PACKAGE}.ship", [str(stage_output(run_dir, recipe, recipe.stages[-1].name)),
                                                   str(out / SHIPPED_NAME), *positions, *ship_options(recipe.ship),
                                                   "--recipe", recipe.env_id]))
    files = [SHIPPED_NAME]
    if recipe.board_free:
        free, start = recipe.board_free, run_dir / BOARD_FREE / "start.pt"
        files.append(free.file)
        steps.append(Step(BOARD_FREE, f"{PACKAGE}.board_free",
                          ["--specialist", str(out / SHIPPED_NAME), "--config", str(free.config_path), "--out", str(start),
                           "--value-games", str(scaled(free.value_games, scale, least=0)),
                           "--value-steps", str(scaled(free.value_steps, scale))]))
        steps.append(Step(f"ship {BOARD_FREE}", f"{PACKAGE}.ship", [str(start), str(out / free.file), *positions,
                                                                     *ship_options(free.ship), "--recipe", recipe.env_id]))
    config = stage_folder(run_dir, len(recipe.stages), recipe.stages[-1]) / "config.yaml"

    def shipped(spec: str) -> str:
        base = split_spec(spec)[0]
        return str(out / base) + spec[len(base):] if base in files else spec

    for report in recipe.reports:
        argv = ["--config", str(config_path(report.config) if report.config else config),
                "--agents", *[shipped(spec) for spec in report.agents]]
        if report.pairings:
            argv += ["--pairings", *report.pairings]
        argv += ["--games", str(scaled(report.games, scale, least=2)), "--seed", str(report.seed),
                 "--workers", str(workers), "--out", str(out), "--stem", report.stem]
        steps.append(Step(f"report {report.stem}", f"{PACKAGE}.evaluate", argv, out / f"{report.stem}.games.jsonl",
                          argv + ["--resume"]))
    return steps


def parse_stages(text: str | None, count: int) -> tuple[int, int]:
    """``K``, ``K..M``, ``K..`` or ``..M`` (stage numbers from 1) as ``(first, last)``."""
    if text is None:
        return 1, count
    first, dots, last = text.partition("..")
    try:
        low = int(first) if first else 1
        high = int(last) if last else (count if dots else low)
    except ValueError:
        raise ValueError(f"--stages {text!r}: expected K, K..M, K.. or ..M with stage numbers") from None
    if not 1 <= low <= high <= count:
        raise ValueError(f"--stages {text!r}: the recipe's stages are 1..{count}")
    return low, high


def selected(steps: list[Step], recipe: Recipe, first: int, last: int, done: set[str]) -> list[Step]:
    """The steps of stages ``first..last`` (with the ship step and reports when ``last`` is the
    final stage); ``ValueError`` where one needs an earlier stage's output that is not made."""
    keep = [s for s in steps if (first <= s.stage <= last if s.stage else last == len(recipe.stages))]
    keys = {s.key for s in keep} | done
    for number in range(first, last + 1):
        stage = recipe.stages[number - 1]
        for name in filter(None, (stage.init_from, stage.expert and stage.expert.rsplit("@", 1)[0])):
            source = next(k for k, s in enumerate(recipe.stages, 1) if s.name == name)
            needed = [s.key for s in steps if s.stage == source]
            if not set(needed) <= keys:
                raise ValueError(f"stage {number} ({stage.name}) starts from stage {source} ({name}), which this run "
                                 f"has not made: include it in --stages (or --resume a run that made it)")
    return keep


def describe(recipe: Recipe, steps: list[Step], run_dir: Path, scale: float, done: set[str],
             seconds: dict[str, float] | None = None) -> str:
    """The plan as ``--dry-run`` prints it (with a run's ``seconds``: what each step took)."""
    lines = [f"recipe of {recipe.env_id} ({shown(recipe.source)}), run folder {run_dir}"
             + (f", budgets x {scale:g}" if scale != 1 else "") + ":"]
    total = 0.0
    for step in steps:
        stage = recipe.stages[step.stage - 1] if step.stage else None
        if step.key.startswith("train"):
            config = load_config(stage.config_path)
            kind = "expert iteration" if config["train"]["algorithm"] == "alphazero" else "PPO"
            inputs = "".join(text for value, text in ((stage.init_from, f", from {stage.init_from}'s network"),
                                                      (stage.expert, f", expert {stage.expert}")) if value)
            cost = "cost not measured" if step.cost_s is None else f"{minutes(step.cost_s)} here"
            total += step.cost_s or 0.0
            lines.append(f"  {step.key}: {kind}, {scaled(stage.budget, scale):,} steps of {stage.config}{inputs} "
                         f"({cost})")
        else:
            cost = " (seconds)" if step.key.startswith("ship") else " (a minute or two)" if step.key == BOARD_FREE else ""
            lines.append(f"  {step.key}{cost}")
        state = "done" if step.key in done else ("started" if step.started and step.started.exists() else "")
        if state and (seconds or {}).get(step.key):
            state += f" in {minutes(seconds[step.key])}" if state == "done" else f", {minutes(seconds[step.key])} so far"
        lines.append(f"      {step.command(resume=state.startswith('started'))}" + (f"   [{state}]" if state else ""))
    lines.append(f"training: {minutes(total)} here, measured when the shipped agent was trained (2-core machine "
                 "shared with other work); the reports' games come on top")
    return "\n".join(lines)


def shown(path: str) -> str:
    """A path relative to the working directory where it is inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def minutes(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 5400 else f"{seconds / 60:.0f} min" if seconds >= 60 else \
        f"{seconds:.0f} s"


# ---------------------------------------------------------------- running
def call_main(module: str, argv: list[str]) -> int:
    """``module.main(argv)`` in this process; its exit status."""
    try:
        return int(importlib.import_module(module).main(argv) or 0)
    except SystemExit as stop:   # argparse's errors
        return stop.code if isinstance(stop.code, int) else 1


def ray_runner(address: str):
    """A runner that plays each step as a Ray task on the cluster at ``address`` (Ray's own
    API; with token authentication, ``RAY_AUTH_MODE=token`` and the token where Ray looks for
    it). Every node must see the clone and the run folder at the same paths (shared storage):
    the task runs in this process's working directory, with this clone on its import path."""
    import ray

    top = Path(importlib.import_module(PACKAGE.split(".")[0]).__file__).resolve().parent.parent
    ray.init(address=address, runtime_env={"env_vars": {"PYTHONPATH": str(top)}})
    task = ray.remote(num_cpus=1, max_retries=0)(_call_in)

    def run(module: str, argv: list[str]) -> int:
        ref = task.remote(module, argv, os.getcwd())
        try:
            return ray.get(ref)
        except KeyboardInterrupt:
            ray.cancel(ref)   # raises KeyboardInterrupt in the task: a training run saves itself
            ray.wait([ref], timeout=600)
            raise
    return run


def _call_in(module: str, argv: list[str], cwd: str) -> int:
    os.chdir(cwd)
    return call_main(module, argv)


def write_state(run_dir: Path, state: dict) -> None:
    text = json.dumps(state, indent=2).encode()
    atomic_write(run_dir / STATE_FILE, lambda handle: handle.write(text))


def new_run(recipe: Recipe, run_dir: Path, scale: float, command: str) -> dict:
    """Create the run folder: its state and every stage's config file."""
    if (run_dir / STATE_FILE).exists():
        raise ValueError(f"{str(run_dir)!r} already holds a recipe run: --resume it or give another --run-dir")
    state = {"recipe": recipe.as_dict(), "budget_scale": scale, "done": [], "seconds": {}, "commands": [command]}
    for number, stage in enumerate(recipe.stages, 1):
        text = (f"# stage {number} of {recipe.source}: {stage.config} with its budget and inputs filled in\n"
                + yaml.safe_dump(stage_config(recipe, number, run_dir, scale), sort_keys=False))
        path = stage_folder(run_dir, number, stage) / "config.yaml"
        atomic_write(path, lambda handle, t=text: handle.write(t.encode()))
    write_state(run_dir, state)
    return state


def run_steps(run_dir: Path, steps: list[Step], state: dict, runner=call_main, log=print) -> int:
    """Run the steps not done yet, in order; each one recorded in ``recipe.json`` when it ends.
    Returns 0, or the exit status of the step that stopped the run."""
    for step in steps:
        if step.key in state["done"]:
            continue
        resume = step.started is not None and step.started.exists() and step.resume_argv is not None
        log(f"[recipe] {step.key}: {step.command(resume)}", flush=True)
        began = time.perf_counter()
        try:
            code = runner(step.module, step.resume_argv if resume else step.argv)
        finally:
            with deferred_interrupts():
                state["seconds"][step.key] = state["seconds"].get(step.key, 0.0) + time.perf_counter() - began
                write_state(run_dir, state)
        if code != 0:
            log(f"[recipe] {step.key} stopped (exit status {code}); continue with: "
                f"{module_prog(__spec__)} --resume {run_dir}", flush=True)
            return code
        with deferred_interrupts():
            state["done"].append(step.key)
            write_state(run_dir, state)
    return 0


def default_recipe_dir(env_id: str) -> Path:
    return Path("runs") / f"recipe-{env_id}-{time.strftime('%Y%m%d-%H%M%S')}"


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or module_prog(__spec__), description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument("recipe", nargs="?", help="an env id (configs/recipes/<env_id>/recipe.yaml) or a recipe file")
    parser.add_argument("--run-dir", help="the run folder (default: runs/recipe-<env_id>-<time>)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the recipe run in this folder")
    parser.add_argument("--dry-run", action="store_true", help="print the plan (each step's command and cost) and stop")
    parser.add_argument("--stages", metavar="K..M", help="run only stages K to M (numbers from 1; K, K.., ..M too); "
                                                         "the ship step and reports run with the last stage")
    parser.add_argument("--budget-scale", type=float, metavar="F",
                        help="multiply every stage's budget and every report's games by F (a new run; default 1)")
    parser.add_argument("--workers", type=int, default=1, help="processes that share each report pairing's games")
    parser.add_argument("--address", metavar="ADDR", help="run each step as a task on the Ray cluster at ADDR")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    command = f"{parser.prog} " + shlex.join(sys.argv[1:] if argv is None else argv)
    try:
        if bool(args.recipe) == bool(args.resume):
            raise ValueError("give a recipe (an env id or a recipe file) or --resume RUN_DIR")
        if args.resume:
            run_dir = Path(args.resume)
            if not (run_dir / STATE_FILE).is_file():
                raise ValueError(f"cannot resume: {str(run_dir / STATE_FILE)!r} does not exist")
            state = json.loads((run_dir / STATE_FILE).read_text())
            if args.budget_scale is not None and args.budget_scale != state["budget_scale"]:
                raise ValueError(f"--budget-scale: the run was started with {state['budget_scale']:g}")
            recipe, scale = recipe_from_dict(state["recipe"]), state["budget_scale"]
        else:
            recipe, scale = load_recipe(args.recipe), 1.0 if args.budget_scale is None else args.budget_scale
            if not scale > 0:
                raise ValueError(f"--budget-scale must be positive, got {scale}")
            run_dir = Path(args.run_dir) if args.run_dir else default_recipe_dir(recipe.env_id)
            state = {"done": []}
        if args.workers < 1:
            raise ValueError("--workers must be >= 1")
        first, last = parse_stages(args.stages, len(recipe.stages))
        steps = selected(plan(recipe, run_dir, scale, args.workers, not args.no_progress), recipe, first, last,
                         set(state["done"]))
    except ValueError as error:
        parser.error(str(error))
    if args.dry_run:
        print(describe(recipe, steps, run_dir, scale, set(state["done"]), state.get("seconds")))
        return 0
    try:
        with interrupts_as_keyboard():   # SIGTERM between steps stops the run like Ctrl-C
            if args.resume:
                state["commands"].append(command)
                write_state(run_dir, state)
            else:
                state = new_run(recipe, run_dir, scale, command)
            runner = ray_runner(args.address) if args.address else call_main
            code = run_steps(run_dir, steps, state, runner)
    except KeyboardInterrupt as stop:
        print(f"[recipe] stopped: continue with {parser.prog} --resume {run_dir}", file=sys.stderr)
        return 128 + getattr(stop, "signum", 2)
    except ValueError as error:
        parser.error(str(error))
    if code == 0 and last == len(recipe.stages):
        print(f"[recipe] {recipe.env_id} rebuilt: {run_dir / SHIPPED}")
    return code


if __name__ == "__main__":
    sys.exit(main())
