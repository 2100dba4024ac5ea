"""Self-play MaskablePPO: the learner plays every seat in turn against an opponent pool.

Rollouts come from :mod:`training.collector`: ``train.n_envs`` games in lockstep, every
opponent decision batched per pool member, optionally spread over ``train.processes``
worker processes. The learner is sb3-contrib's ``MaskablePPO``, unmodified; its rollout
buffer (SB3's ``rollout_buffer_class``) is :class:`~training.seat_buffer.PerSeatRolloutBuffer`,
so that with ``pool.learn_from_latest`` both sides of a self-play game are trained on.

A run lives in one folder (see :mod:`training.run_folder`):

* ``model_latest.zip`` and ``run_state.json`` — everything needed to resume (written at
  every checkpoint and when the run is interrupted);
* ``checkpoints/step_<N>.pt`` — weights-only policy checkpoints (see
  :mod:`sky_envs.agents.policy`), which also join the opponent pool;
* ``final.pt`` and ``evaluation.{json,csv,png}`` at the end; ``tb/`` TensorBoard logs.

Everything is saved at rollout boundaries, after the PPO update on that rollout, so the
steps a save records are steps trained on: a resumed run does exactly the updates the
uninterrupted run would have done. Ctrl-C and SIGTERM stop the run at the next safe point
(never inside an update or a write) and save it.

``model_latest.zip`` is Stable-Baselines3's own format (it holds the optimiser and is
unpickled on resume): resume only runs you made. Checkpoints for play are the ``.pt`` files.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import numpy as np

from sky_envs.agents import save_checkpoint
from sky_envs.agents.checkpoint import policy_metadata
from sky_envs.agents.network import game_layout, policy_class, policy_kwargs
from sky_envs.core.registry import canonical_id, make_game
from .allocator import keep_freed_memory
from .config import cpu_has_bfloat16_units, trunk_dtype
from .evaluate import evaluate_policy
from .progress import RolloutCycles, RolloutRegion
from .run_folder import CHECKPOINTS, MODEL, STATE, atomic_write, read_state, remove_leftovers, write_state
from .seat_buffer import PerSeatRolloutBuffer
from .signals import deferred_interrupts, interrupts_as_keyboard
from .tournament import quick_scores
from .warm_start import initial_weights
from .workers import make_collector


#: what SB3 saves of the last step taken (Scala's 128 observations printed into the file's JSON)
LAST_STEP = ["_last_obs", "_last_original_obs", "_last_episode_starts"]


class SelfPlayRun:
    """One self-play PPO run; ``train()`` then ``evaluate()`` (a :class:`~training.learner.Learner`)."""

    def __init__(self, config: dict, run_dir: str | Path, progress: bool = True, log=None):
        self.config = config
        self.env_id = canonical_id(config["env"]["id"])
        self.options = dict(config["env"]["options"])
        self.game = make_game(self.env_id, **self.options)  # validates the options now
        self.run_dir = Path(run_dir)
        self.progress = progress
        if log is None:
            from tqdm import tqdm

            log = tqdm.write  # prints above the progress bar rather than through it
        self.log = log
        train = config["train"]
        self.seed = int(train["seed"])
        import torch

        torch.set_num_threads(int(train["torch_threads"]))
        keep_freed_memory()
        self.steps_done = 0
        self.seconds = 0.0  # wall-clock time of the rollouts and updates done (across resumes)
        self.quick_evals: list[dict] = []
        self.model = None
        self.init_weights, self.init_from = initial_weights(config, run_dir)  # fine-tuning (train.init_from)
        self.command = ""  # the command line that started the run (and resumed it), recorded in checkpoints
        self.decision_seconds: dict[str, float] = {}  # opponents' time deciding, by name (one process only)

    # ---------------------------------------------------------------- set-up
    def _make_vec_env(self):
        train, pool = self.config["train"], self.config["pool"]
        # a resumed run plays new games, not the ones the run began with
        seed = int(np.random.SeedSequence([self.seed, self.steps_done]).generate_state(1)[0])
        return make_collector(self.env_id, self.options, train["n_envs"], pool, seed=seed,
                              processes=train["processes"])

    def _new_model(self, vec):
        from sb3_contrib import MaskablePPO

        model = MaskablePPO(policy_class(self.config["policy"]), vec, seed=self.seed, device="cpu", verbose=0,
                            tensorboard_log=str(self.run_dir / "tb"), policy_kwargs=self._policy_kwargs(),
                            rollout_buffer_class=PerSeatRolloutBuffer, **self.config["ppo"])
        if self.init_weights is not None:
            model.policy.load_state_dict(self.init_weights)
        return model

    # the network: these two methods are the only places that read config["policy"]
    def _policy_kwargs(self) -> dict:
        game, spec = self.game, self.config["policy"]
        # eps 1e-5: SB3's Adam for PPO, which it sets only where no optimizer_kwargs are given
        return {**policy_kwargs(spec, game.observation_shape, game.num_actions, **game_layout(game),
                                possible_actions=game.possible_actions),
                "optimizer_kwargs": {"eps": 1e-5, "fused": self.config["train"]["fused_adam"]}}

    def metadata(self) -> dict:
        return policy_metadata(self.game, self.options, self.config["policy"], algorithm="MaskablePPO self-play",
                               steps=int(self.steps_done), seed=self.seed, wall_clock_s=round(self.seconds, 1),
                               command=self.command, **({"init_from": self.init_from} if self.init_from else {}),
                               **self._precision_record())

    def _precision_record(self) -> dict:
        """What a checkpoint records of ``train.precision``: the trunk's dtype where it was not float32."""
        dtype = getattr(getattr(self.model, "policy", None), "trunk_dtype", None)
        return {} if dtype is None else {"trunk_dtype": str(dtype).removeprefix("torch.")}

    # ------------------------------------------------------------ checkpoints
    def save(self, model, vec, checkpoint: bool) -> Path | None:
        """Save what a resume needs; with ``checkpoint`` also a weights-only policy file
        (which joins the opponent pool). Signals wait until the files are whole."""
        with deferred_interrupts():
            path = None
            if checkpoint:
                path = save_checkpoint(self.run_dir / CHECKPOINTS / f"step_{self.steps_done:09d}.pt",
                                       model.policy, self.metadata())
                vec.add_checkpoint(path)
            # the last observations are left out: a loaded model resets its games (SB3's set_env)
            atomic_write(self.run_dir / MODEL, lambda handle: model.save(handle, exclude=LAST_STEP))
            write_state(self.run_dir, {"env_id": self.env_id, "env_options": self.options, "config": self.config,
                                       "steps_done": int(self.steps_done), "seconds": self.seconds,
                                       "command": self.command, "init_from": self.init_from,
                                       "quick_evals": self.quick_evals},
                        vec.checkpoint_paths())
        return path

    def quick_eval(self, model) -> dict:
        scores = {"steps": int(self.steps_done),
                  **quick_scores(self.env_id, self.options, model.policy, self.config["train"]["quick_eval_games"],
                                 seed=10_000 + self.steps_done % 997, agent_seed=self.seed)}
        for name in ("random", "greedy"):
            model.logger.record(f"eval/score_vs_{name}", scores[name])
        self.quick_evals.append(scores)
        return scores

    # ------------------------------------------------------------------ train
    def train(self, resume: bool = False, callback=None) -> Path:
        """Train to ``train.timesteps`` (continuing a saved run with ``resume``); returns the
        final checkpoint. ``callback``: an extra SB3 callback (e.g. to stop early)."""
        from sb3_contrib import MaskablePPO

        if resume:
            for path in remove_leftovers(self.run_dir):
                self.log(f"removed {path}, left by an interrupted write")
            state = read_state(self.run_dir)
            if state["env_id"] != self.env_id or state["env_options"] != self.options:
                raise ValueError(f"cannot resume: the run in {str(self.run_dir)!r} trained {state['env_id']} "
                                 f"{state['env_options']}, not {self.env_id} {self.options}")
            self.steps_done = int(state["steps_done"])
            self.seconds = float(state.get("seconds", 0.0))  # runs saved before it was recorded count from 0
            self.quick_evals = list(state.get("quick_evals", []))
            self.init_from = state.get("init_from")
            if state.get("command") and self.command:  # the run's whole history: started, then resumed
                self.command = f"{state['command']} ; {self.command}"
        elif (self.run_dir / STATE).exists():
            raise ValueError(f"{str(self.run_dir)!r} already holds a run: pass resume=True (--resume) or another folder")
        vec = self._make_vec_env()
        try:
            if resume:
                for path in state["pool"]:
                    vec.add_checkpoint(path)
                model = MaskablePPO.load(self.run_dir / MODEL, env=vec, device="cpu",
                                         tensorboard_log=str(self.run_dir / "tb"),
                                         custom_objects={"rollout_buffer_class": PerSeatRolloutBuffer})
                self.steps_done = model.num_timesteps  # the weights' own count (run_state is written after them)
                self.log(f"resuming {self.env_id} at step {self.steps_done} from {self.run_dir}")
            else:
                model = self._new_model(vec)
            precision = self.config["train"]["precision"]
            model.policy.trunk_dtype = trunk_dtype(precision)
            if precision == "auto":
                units = model.policy.trunk_dtype is not None
                self.log(f"train.precision auto: the trunk in {'bfloat16' if units else 'float32'} (this CPU has "
                         f"{'' if units else 'no '}bfloat16 matrix units)")
            elif precision == "bfloat16" and not cpu_has_bfloat16_units():
                self.log("train.precision bfloat16: this CPU has no bfloat16 matrix units (AMX or AVX-512 BF16), "
                         "so torch emulates them and the run is slower than in float32")
            model.rollout_buffer.attach(vec, legal_lists=getattr(model.policy, "reads_legal_actions", False))
            vec.set_live_policy(model.policy)
            self.model = model
            return self._learn(model, vec, resume, callback)
        finally:
            self.decision_seconds = dict(getattr(vec, "decision_seconds", {}))
            vec.close()

    def _learn(self, model, vec, resume: bool, callback) -> Path:
        every = self.config["train"]["checkpoint_every"]
        total = self.config["train"]["timesteps"]
        cycle_started = time.perf_counter()

        def between_cycles(model) -> None:
            nonlocal cycle_started
            now = time.perf_counter()
            self.seconds, cycle_started = self.seconds + now - cycle_started, now
            previous, self.steps_done = self.steps_done, model.num_timesteps
            if self.steps_done // every > previous // every:
                path = self.save(model, vec, checkpoint=True)
                scores = self.quick_eval(model)
                self.log(f"step {self.steps_done}: checkpoint {path.name}; score vs random "
                         f"{scores['random']:.2f}, vs greedy {scores['greedy']:.2f}")
            vec.refresh_live_policy()

        remaining = max(0, total - self.steps_done)
        cycles = RolloutCycles(total, between_cycles, progress=self.progress)
        casts = RolloutRegion(getattr(model.policy, "casts_kept", contextlib.nullcontext))
        with interrupts_as_keyboard():
            try:
                if remaining:
                    try:
                        model.learn(remaining, callback=[cycles, casts] + ([callback] if callback is not None else []),
                                    reset_num_timesteps=not resume, tb_log_name="selfplay")
                    finally:   # a rollout stopped half-way leaves its region open
                        casts.close()
                with deferred_interrupts():
                    self.save(model, vec, checkpoint=False)
                    final = save_checkpoint(self.run_dir / "final.pt", model.policy, self.metadata())
            except KeyboardInterrupt:  # Ctrl-C, SIGTERM (TrainingInterrupted) or a callback's stop
                cycles.close()
                model.num_timesteps = self.steps_done  # the partial rollout is collected again on resume
                self.save(model, vec, checkpoint=False)
                self.log(f"interrupted at step {self.steps_done}: saved; continue with --resume {self.run_dir}")
                raise
        self.log(f"trained {self.steps_done} steps in {self.seconds:.0f} s; final policy {final}")
        return final

    # --------------------------------------------------------------- evaluate
    def evaluate(self, policy_path: Path) -> dict:
        return evaluate_policy(self.env_id, self.options, policy_path, self.config["eval"], self.seed, self.run_dir,
                               self.log, training_steps=int(self.steps_done))


def default_run_dir(env_id: str) -> Path:
    return Path("runs") / f"{canonical_id(env_id)}-{time.strftime('%Y%m%d-%H%M%S')}"


__all__ = ["SelfPlayRun", "default_run_dir"]
