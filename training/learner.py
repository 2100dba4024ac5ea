"""What a learner is to :mod:`training.train`: the interface both training algorithms give.

:class:`~training.selfplay.SelfPlayRun` (MaskablePPO self-play) and
:class:`~training.alphazero.ExpertIterationRun` (expert iteration) implement it
structurally (neither imports this module); ``train.algorithm`` picks the class. A learner
is built from a loaded config (:func:`training.config.load_config`) and a run folder, trains
in that folder (or resumes the run it holds), and evaluates a checkpoint of it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Learner(Protocol):
    """One training run in one folder (``run_dir``)."""

    config: dict          # the whole loaded config (env, train, policy, the algorithm's section, eval)
    env_id: str           # canonical env id
    options: dict         # the env options trained on
    run_dir: Path         # the run folder: resume state, checkpoints/step_<N>.pt, final.pt, evaluation.*, tb/
    seed: int             # train.seed
    steps_done: int       # training steps done (PPO: env steps; expert iteration: recorded decisions)
    seconds: float        # wall-clock time trained, across resumes
    quick_evals: list[dict]  # the scores against random and greedy taken at each checkpoint
    init_from: str | None    # the checkpoint the weights started from (train.init_from), if any
    command: str          # the command line that started (and resumed) the run, recorded in checkpoints

    def metadata(self) -> dict:
        """The metadata a checkpoint of the run records (:func:`sky_envs.agents.checkpoint.policy_metadata`)."""

    def train(self, resume: bool = False, callback: Any = None) -> Path:
        """Train to ``train.timesteps`` (with ``resume``, continue the run saved in ``run_dir``;
        without, refuse a folder that holds one); returns the final checkpoint (``final.pt``).
        ``callback`` is the algorithm's own hook (PPO: an SB3 callback; expert iteration:
        ``callback(run)`` after each iteration, False stops). Ctrl-C and SIGTERM save the run
        and raise."""

    def evaluate(self, policy_path: Path) -> dict:
        """The evaluation tournament of a checkpoint (``eval``), its report written into ``run_dir``."""


class LearnerClass(Protocol):
    """How a learner is built: ``LearnerClass(config, run_dir, progress=..., log=...)``."""

    def __call__(self, config: dict, run_dir: str | Path, progress: bool = ...,
                 log: Callable[..., None] = ...) -> Learner: ...


__all__ = ["Learner", "LearnerClass"]
