"""A shipped agent's recipe: the one file that says how to rebuild it from nothing.

``configs/recipes/<env_id>/recipe.yaml`` lists the agent's stages in order, then how the last
stage's network is shipped and which reports are played on it::

    env: scala_v0
    stages:
      - name: imitate_alphabeta                       # a name later stages refer to
        config: recipes/scala_v0/1_imitate_alphabeta.yaml   # under configs/ (or an absolute path)
        budget: 60000                                 # train.timesteps of this stage
        wall_clock_s: 1555.2                          # measured here (the checkpoint's metadata)
      - name: finetune_vs_greedy
        config: recipes/scala_v0/2_finetune_vs_greedy.yaml
        init_from: imitate_alphabeta                  # train.init_from: an earlier stage's output
        budget: 600000
    ship: {}                                          # training.ship's settings for the shipped file
    board_free:                                       # optional: a second network made from the shipped one
      file: universal.pt                              #   its name beside policy.pt
      config: recipes/sky_scrapers_v0/universal/1_every_board.yaml   # training.board_free's --config
      value_games: 3000                               #   --value-games and --value-steps
      value_steps: 6000
      ship: {c_puct: 2.0}                             #   training.ship's settings for it
    reports:                                          # training.evaluate runs on the shipped files
      - {stem: report, agents: [policy.pt, random], pairings: ["policy:random"], games: 200, seed: 0}
      - {stem: report_5x5, config: sky_scrapers_5x5.yaml, agents: [universal.pt@200, mcts@400], games: 200}

A stage's inputs are only earlier stages' outputs: ``init_from: STAGE`` (the weights it
starts from) and ``expert: STAGE@N`` (``alphazero.expert``: that network's search with N
simulations). A stage's output is its run's ``final.pt``, or with ``ship:`` (the same
settings as the recipe's ``ship``) that file shipped with those settings: the search
settings a later stage's ``expert`` plays with, or float16 weights a later stage starts
from. In ``reports``, ``policy.pt`` is the shipped file (``policy.pt@N``: its search) and
``board_free.file`` the second one, which :mod:`training.board_free` makes from the shipped
file (a network whose weights fit every board) and ``training.ship`` ships; a report plays
the last stage's config unless it names its own ``config`` (under configs/, or absolute).
Every key is checked when the file is read (:func:`load_recipe`); a config's own
``train.init_from`` and checkpoint ``alphazero.expert`` are always replaced by the recipe's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from sky_envs.agents import BASELINES, split_spec
from sky_envs.agents.pretrained import data_folder
from sky_envs.core.registry import canonical_id
from .config import load_config

RECIPE = "recipe.yaml"
#: training.ship's settings as a recipe names them -> the option that sets each
SHIP_OPTIONS = {"weights_dtype": "--weights-dtype", "c_puct": "--c-puct", "rollout_weight": "--rollout-weight",
                "rollout_policy": "--rollout-policy", "leaves_per_call": "--leaves-per-call", "solver": "--solver",
                "root": "--root", "gumbel_k": "--gumbel-k", "gumbel_scale": "--gumbel-scale", "c_scale": "--c-scale",
                "exact_nodes": "--exact-nodes", "average_symmetries": "--average-symmetries"}
STAGE_KEYS = {"name", "config", "budget", "init_from", "expert", "ship", "wall_clock_s"}
REPORT_KEYS = {"stem", "agents", "pairings", "games", "seed", "config"}
BOARD_FREE_KEYS = {"file", "config", "value_games", "value_steps", "ship"}
BOARD_FREE_LEAST = {"value_games": 0, "value_steps": 1}   # the least value of board_free's counts
SHIPPED_NAME = "policy.pt"


@dataclass(frozen=True)
class Stage:
    """One training run of a recipe."""

    name: str
    config: str                  # the config file: a path under configs/, or absolute
    budget: int                  # train.timesteps
    init_from: str | None = None  # an earlier stage's name
    expert: str | None = None    # "STAGE@N": an earlier stage's network searching with N simulations
    ship: dict = field(default_factory=dict)  # training.ship settings of the stage's output (empty: final.pt)
    wall_clock_s: float | None = None  # what the stage took here at its full budget, where measured

    @property
    def config_path(self) -> Path:
        return config_path(self.config)


@dataclass(frozen=True)
class Report:
    """One ``training.evaluate`` run on the shipped file."""

    stem: str
    agents: list[str]
    pairings: list[str]
    games: int
    seed: int = 0
    config: str | None = None    # the config whose game it plays (default: the last stage's)


@dataclass(frozen=True)
class BoardFree:
    """A second shipped network made from the first by :mod:`training.board_free`."""

    file: str                    # its name beside the shipped policy.pt, e.g. universal.pt
    config: str                  # training.board_free's --config (its network, env and mixture)
    value_games: int = 3000
    value_steps: int = 6000
    ship: dict = field(default_factory=dict)  # training.ship settings of it

    @property
    def config_path(self) -> Path:
        return config_path(self.config)


@dataclass(frozen=True)
class Recipe:
    env_id: str
    stages: list[Stage]
    ship: dict
    reports: list[Report]
    source: str = ""             # the file it was read from
    board_free: BoardFree | None = None

    def stage(self, name: str) -> Stage:
        return next(stage for stage in self.stages if stage.name == name)

    def as_dict(self) -> dict:
        """Plain data, as written into a run folder (:func:`recipe_from_dict` reads it back)."""
        return {"env": self.env_id, "source": self.source,
                "stages": [{key: value for key, value in vars(stage).items() if value not in (None, {})}
                           for stage in self.stages],
                "ship": dict(self.ship),
                "reports": [{key: value for key, value in vars(report).items() if value is not None}
                            for report in self.reports],
                **({"board_free": dict(vars(self.board_free))} if self.board_free else {})}


def config_path(name: str) -> Path:
    """A stage's config file: absolute as given, else under the configs folder."""
    path = Path(name)
    return path if path.is_absolute() else data_folder("configs") / path


def recipe_path(env_or_file: str) -> Path:
    """``configs/recipes/<env_id>/recipe.yaml`` for an env id, or the file named."""
    if env_or_file.endswith((".yaml", ".yml")):
        return Path(env_or_file)
    folder = data_folder("configs") / "recipes"
    path = folder / canonical_id(env_or_file) / RECIPE
    if not path.is_file():
        known = sorted(p.parent.name for p in folder.glob(f"*/{RECIPE}"))
        raise ValueError(f"no recipe for {env_or_file!r} ({str(path)!r} does not exist): the envs with one are {known}")
    return path


def load_recipe(env_or_file: str) -> Recipe:
    """The recipe of an env (or in a file), every key and reference checked (``ValueError``)."""
    path = recipe_path(env_or_file)
    if not path.is_file():
        raise ValueError(f"recipe file {str(path)!r} does not exist")
    data = yaml.safe_load(path.read_text())
    return recipe_from_dict(data, source=str(path))


def recipe_from_dict(data, source: str = "") -> Recipe:
    where = source or "the recipe"
    if not isinstance(data, dict) or set(data) - {"env", "stages", "ship", "reports", "source", "board_free"} \
            or not {"env", "stages"} <= set(data):
        raise ValueError(f"{where}: expected a mapping with env, stages and optionally ship, board_free and reports, "
                         f"got {sorted(data) if isinstance(data, dict) else type(data).__name__}")
    env_id = canonical_id(data["env"])
    if not isinstance(data["stages"], list) or not data["stages"]:
        raise ValueError(f"{where}: stages must be a non-empty list")
    stages: list[Stage] = []
    for number, entry in enumerate(data["stages"], 1):
        stages.append(_stage(entry, stages, env_id, f"{where}: stage {number}"))
    board_free = _board_free(data["board_free"], env_id, f"{where}: board_free") if data.get("board_free") else None
    files = [SHIPPED_NAME] + ([board_free.file] if board_free else [])
    reports = [_report(entry, files, env_id, f"{where}: report {number}")
               for number, entry in enumerate(data.get("reports") or [], 1)]
    if len({report.stem for report in reports}) < len(reports):
        raise ValueError(f"{where}: two reports share a stem")
    return Recipe(env_id, stages, _ship(data.get("ship") or {}, f"{where}: ship"), reports,
                  data.get("source") or source, board_free)


def _stage(entry, earlier: list[Stage], env_id: str, where: str) -> Stage:
    if not isinstance(entry, dict) or set(entry) - STAGE_KEYS or not {"name", "config", "budget"} <= set(entry):
        raise ValueError(f"{where}: expected a mapping with name, config, budget and optionally "
                         f"{sorted(STAGE_KEYS - {'name', 'config', 'budget'})}, got {entry!r}")
    name, budget = entry["name"], entry["budget"]
    if not isinstance(name, str) or not name.replace("_", "").isalnum() or any(s.name == name for s in earlier):
        raise ValueError(f"{where}: name must be a new word of letters, digits and _, got {name!r}")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"{where} ({name}): budget must be a positive number of steps, got {budget!r}")
    names = [stage.name for stage in earlier]
    init_from, expert = entry.get("init_from"), entry.get("expert")
    if init_from is not None and init_from not in names:
        raise ValueError(f"{where} ({name}): init_from must name an earlier stage of the recipe {names}, "
                         f"got {init_from!r}")
    if expert is not None:
        base, simulations = split_spec(str(expert))
        if base not in names or not simulations:
            raise ValueError(f"{where} ({name}): expert must be STAGE@N, an earlier stage of {names} searching "
                             f"with N simulations, got {expert!r}")
    stage = Stage(name, str(entry["config"]), budget, init_from, expert, _ship(entry.get("ship") or {}, where),
                  entry.get("wall_clock_s"))
    _check_config(stage, env_id, where)
    return stage


def _env_config(name: str, env_id: str, where: str) -> dict:
    """Config ``name`` (:func:`config_path`) loaded; ``ValueError`` unless it is a valid config of ``env_id``."""
    path = config_path(name)
    try:
        config = load_config(path)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    if canonical_id(config["env"]["id"]) != env_id:
        raise ValueError(f"{where}: {str(path)!r} plays {config['env']['id']}, not {env_id}")
    return config


def _check_config(stage: Stage, env_id: str, where: str) -> None:
    path = stage.config_path
    config = _env_config(stage.config, env_id, f"{where} ({stage.name})")
    expert = config["alphazero"]["expert"]
    if expert and split_spec(expert)[0].endswith(".pt") and stage.expert is None:
        raise ValueError(f"{where} ({stage.name}): {str(path)!r} learns from the checkpoint {expert!r}: "
                         "say which earlier stage is that expert (expert: STAGE@N)")
    if stage.expert is not None and config["train"]["algorithm"] != "alphazero":
        raise ValueError(f"{where} ({stage.name}): expert is a setting of expert iteration, but {str(path)!r} "
                         "trains with PPO")


def _ship(settings, where: str) -> dict:
    if not isinstance(settings, dict) or set(settings) - set(SHIP_OPTIONS):
        raise ValueError(f"{where}: ship settings must be a mapping of {sorted(SHIP_OPTIONS)}, got {settings!r}")
    return dict(settings)


def _board_free(entry, env_id: str, where: str) -> BoardFree:
    if not isinstance(entry, dict) or set(entry) - BOARD_FREE_KEYS or not {"file", "config"} <= set(entry):
        raise ValueError(f"{where}: expected a mapping with file, config and optionally value_games, value_steps "
                         f"and ship, got {entry!r}")
    counts = {key: entry[key] for key in BOARD_FREE_LEAST if key in entry}   # else BoardFree's defaults
    board_free = BoardFree(str(entry["file"]), str(entry["config"]), ship=_ship(entry.get("ship") or {}, where),
                           **counts)
    if not board_free.file.endswith(".pt") or "/" in board_free.file or board_free.file == SHIPPED_NAME:
        raise ValueError(f"{where}: file must be a .pt file name other than {SHIPPED_NAME}, got {board_free.file!r}")
    for key, least in BOARD_FREE_LEAST.items():
        value = getattr(board_free, key)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{where}: {key} must be a whole number >= {least}, got {value!r}")
    _env_config(board_free.config, env_id, where)
    return board_free


def _report(entry, files: list[str], env_id: str, where: str) -> Report:
    if not isinstance(entry, dict) or set(entry) - REPORT_KEYS or not {"stem", "agents", "games"} <= set(entry):
        raise ValueError(f"{where}: expected a mapping with stem, agents, games and optionally pairings, seed and "
                         f"config, got {entry!r}")
    report = Report(str(entry["stem"]), [str(a) for a in entry["agents"]],
                    [str(p) for p in entry.get("pairings") or []], entry["games"], entry.get("seed", 0),
                    None if entry.get("config") is None else str(entry["config"]))
    for spec in report.agents:
        base = split_spec(spec)[0]
        if base not in files and base not in BASELINES:
            raise ValueError(f"{where}: agent {spec!r} is neither a shipped file ({', '.join(files)}, with @N for "
                             f"its search) nor a baseline ({sorted(BASELINES)})")
    if report.config is not None:
        _env_config(report.config, env_id, where)
    if isinstance(report.games, bool) or not isinstance(report.games, int) or report.games < 1:
        raise ValueError(f"{where}: games must be a positive number, got {report.games!r}")
    return report


def header_comment(path: str | Path) -> str:
    """The prose of a recipe file's leading comment (without its ``Run: ...`` command line,
    which the docs show as a command of their own)."""
    lines = []
    for line in Path(path).read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line[1:].strip()
        if not text.startswith("Run:"):
            lines.append(text)
    return " ".join(lines)


def recipe_markdown(recipe: Recipe, config_root: str = "configs") -> str:
    """The recipe as the docs show it: the command, a table of its stages (config, inputs,
    budget, wall-clock cost here), the ship settings, the reports and the file's own notes.
    Config paths are shown under ``config_root``."""
    def shown(name: str) -> str:
        return name if Path(name).is_absolute() else f"{config_root}/{name}"

    total = sum(stage.wall_clock_s or 0 for stage in recipe.stages)
    lines = [f"Rebuilt from nothing by one command ({total / 60:.0f} minutes of training here, measured when the "
             "shipped network was trained on the project's 2-core machine shared with other work; the reports' "
             "games come on top):", "", "```bash", f"python -m training.recipe {recipe.env_id}", "```", "",
             f"The recipe, `{shown(f'recipes/{recipe.env_id}/{RECIPE}')}`:", "",
             "| stage | learner | config | starts from | expert | budget | wall-clock here |",
             "|---|---|---|---|---|---:|---:|"]
    for number, stage in enumerate(recipe.stages, 1):
        config = load_config(stage.config_path)
        expert_iteration = config["train"]["algorithm"] == "alphazero"
        expert = (stage.expert or config["alphazero"]["expert"]) if expert_iteration else None
        cost = "" if stage.wall_clock_s is None else f"{stage.wall_clock_s / 60:.0f} min"
        shipped = f" (shipped: {format_settings(stage.ship)})" if stage.ship else ""
        lines.append(f"| {number} `{stage.name}`{shipped} | {'expert iteration' if expert_iteration else 'PPO'} "
                     f"| `{shown(stage.config)}` | {stage.init_from or '-'} | {expert or '-'} "
                     f"| {stage.budget:,} {'decisions' if expert_iteration else 'steps'} | {cost} |")
    lines += ["", f"Shipped with `training.ship` settings {format_settings(recipe.ship) or 'none (the defaults)'}."]
    if recipe.board_free:
        free = recipe.board_free
        lines.append(f"Then `training.board_free` makes `{free.file}` from the shipped network (`{shown(free.config)}`, "
                     f"the value head fitted on {free.value_games:,} of its games, {free.value_steps:,} steps), "
                     f"shipped with settings {format_settings(free.ship) or 'none (the defaults)'}.")
    lines += ["The reports (`training.evaluate`, seats rotating):", ""]
    for report in recipe.reports:
        pairings = ", ".join(p.replace(":", " vs ") for p in report.pairings) or "every pair"
        config = f" on `{shown(report.config)}`" if report.config else ""
        lines.append(f"- `{report.stem}`{config}: {pairings}; {report.games:,} games each, seed {report.seed}")
    notes = header_comment(recipe.source) if recipe.source and Path(recipe.source).is_file() else ""
    return "\n".join(lines + (["", notes] if notes else [])) + "\n"


def format_settings(settings: dict) -> str:
    return ", ".join(f"`{key}: {str(value).lower() if isinstance(value, bool) else value}`"
                     for key, value in settings.items())


__all__ = ["RECIPE", "BoardFree", "Recipe", "Report", "SHIPPED_NAME", "SHIP_OPTIONS", "Stage", "config_path", "load_recipe",
           "recipe_from_dict", "recipe_markdown", "recipe_path"]
