"""Self-play MaskablePPO: the learner plays random seats against an opponent pool.

A run lives in one folder:

* ``model_latest.zip`` and ``run_state.json`` — everything needed to resume (written at
  every checkpoint and when the run is interrupted);
* ``checkpoints/step_<N>.pt`` — weights-only policy checkpoints (see
  :mod:`sky_envs.agents.policy`), which also join the opponent pool;
* ``final.pt`` and ``evaluation.{json,csv,png}`` at the end; ``tb/`` TensorBoard logs.

``model_latest.zip`` is Stable-Baselines3's own format (it holds the optimiser and is
unpickled on resume): resume only runs you made. Checkpoints for play are the ``.pt`` files.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from sky_envs.agents import PolicyAgent, make_agent, save_checkpoint
from sky_envs.agents.checkpoint import policy_metadata
from sky_envs.agents.network import policy_kwargs
from sky_envs.gym_env import SingleAgentEnv
from sky_envs.core.registry import canonical_id, make_game
from training.pool import OpponentPool, PoolAgent
from training.evaluate import evaluate_policy
from training.tournament import match


def _atomic_write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)


class SelfPlayRun:
    """One training run; ``train()`` then ``evaluate()``."""

    def __init__(self, config: dict, run_dir: str | Path, progress: bool = True, log=print):
        self.config = config
        self.env_id = canonical_id(config["env"]["id"])
        self.options = dict(config["env"]["options"])
        self.game = make_game(self.env_id, **self.options)  # validates the options now
        self.run_dir = Path(run_dir)
        self.progress = progress
        self.log = log
        train, pool = config["train"], config["pool"]
        self.seed = int(train["seed"])
        import torch

        torch.set_num_threads(int(train["torch_threads"]))
        self.pool = OpponentPool(self.env_id, self.options, pool["latest"], pool["window"], pool["baselines"], self.seed)
        self.steps_done = 0
        self.quick_evals: list[dict] = []

    # ---------------------------------------------------------------- set-up
    def _make_vec_env(self):
        from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

        players = self.game.num_players

        def make(rank: int):
            def thunk():
                opponents = [PoolAgent(self.pool, seed=self.seed * 1000 + rank * 10 + k) for k in range(players - 1)]
                return SingleAgentEnv(self.env_id, opponent=opponents, seat="random", **self.options)
            return thunk

        vec = VecMonitor(DummyVecEnv([make(rank) for rank in range(self.config["train"]["n_envs"])]))
        vec.seed(self.seed)
        return vec

    def _new_model(self, vec):
        from sb3_contrib import MaskablePPO

        policy = self.config["policy"]
        return MaskablePPO("MlpPolicy", vec, seed=self.seed, device="cpu", verbose=0,
                           tensorboard_log=str(self.run_dir / "tb"),
                           policy_kwargs=policy_kwargs(policy),
                           **self.config["ppo"])

    # ------------------------------------------------------------ checkpoints
    def metadata(self) -> dict:
        return policy_metadata(self.game, self.options, self.config["policy"], algorithm="MaskablePPO self-play",
                               steps=int(self.steps_done), seed=self.seed)

    def save(self, model, checkpoint: bool) -> Path | None:
        """Save what a resume needs; with ``checkpoint`` also a weights-only policy file."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        path = None
        if checkpoint:
            path = save_checkpoint(self.run_dir / "checkpoints" / f"step_{self.steps_done:09d}.pt",
                                   model.policy, self.metadata())
        fd, tmp = tempfile.mkstemp(dir=self.run_dir, prefix="model_latest", suffix=".zip")
        os.close(fd)
        model.save(tmp)
        os.replace(tmp, self.run_dir / "model_latest.zip")
        state = {"env_id": self.env_id, "env_options": self.options, "config": self.config,
                 "steps_done": int(self.steps_done), "pool": self.pool.checkpoint_paths(),
                 "quick_evals": self.quick_evals}
        _atomic_write_text(self.run_dir / "run_state.json", json.dumps(state, indent=2))
        return path

    def quick_eval(self, model) -> dict:
        learner = PolicyAgent(model.policy, deterministic=True)
        games = self.config["train"]["quick_eval_games"]
        scores = {"steps": int(self.steps_done)}
        for name in ("random", "greedy"):
            result = match(self.env_id, self.options, ("learner", learner), (name, make_agent(name, seed=self.seed)),
                           games, seed=10_000 + self.steps_done % 997)
            scores[name] = result.score / max(result.games, 1)
            model.logger.record(f"eval/score_vs_{name}", scores[name])
        self.quick_evals.append(scores)
        return scores

    # ------------------------------------------------------------------ train
    def train(self, resume: bool = False, callback=None) -> Path:
        """Train to ``train.timesteps`` (continuing a saved run with ``resume``); returns the
        final checkpoint. ``callback``: an extra SB3 callback (e.g. to stop early)."""
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback

        run = self
        vec = self._make_vec_env()
        state_path = self.run_dir / "run_state.json"
        if resume:
            if not state_path.is_file() or not (self.run_dir / "model_latest.zip").is_file():
                raise ValueError(f"cannot resume: {str(self.run_dir)!r} holds no run_state.json and model_latest.zip")
            state = json.loads(state_path.read_text())
            if state["env_id"] != self.env_id or state["env_options"] != self.options:
                raise ValueError(f"cannot resume: the run in {str(self.run_dir)!r} trained {state['env_id']} "
                                 f"{state['env_options']}, not {self.env_id} {self.options}")
            self.steps_done = int(state["steps_done"])
            self.quick_evals = list(state.get("quick_evals", []))
            for path in state["pool"]:
                self.pool.add_checkpoint(path)
            model = MaskablePPO.load(self.run_dir / "model_latest.zip", env=vec, device="cpu")
            self.log(f"resuming {self.env_id} at step {self.steps_done} from {self.run_dir}")
        else:
            if state_path.exists():
                raise ValueError(f"{str(self.run_dir)!r} already holds a run: pass resume=True (--resume) or another folder")
            model = self._new_model(vec)
        self.pool.set_live_policy(model.policy)
        every = self.config["train"]["checkpoint_every"]
        total = self.config["train"]["timesteps"]

        class Checkpoints(BaseCallback):
            def _on_step(self) -> bool:
                run.steps_done = self.model.num_timesteps
                if run.steps_done // every > (run.steps_done - self.training_env.num_envs) // every:
                    path = run.save(self.model, checkpoint=True)
                    run.pool.add_checkpoint(path)
                    scores = run.quick_eval(self.model)
                    run.log(f"step {run.steps_done}: checkpoint {path.name}; score vs random "
                            f"{scores['random']:.2f}, vs greedy {scores['greedy']:.2f}")
                return True

        remaining = max(0, total - self.steps_done)
        try:
            if remaining:
                callbacks = [Checkpoints()] + ([callback] if callback is not None else [])
                model.learn(remaining, callback=callbacks, reset_num_timesteps=not resume,
                            progress_bar=self.progress, tb_log_name="selfplay")
        except KeyboardInterrupt:
            self.steps_done = model.num_timesteps
            self.save(model, checkpoint=False)
            self.log(f"interrupted at step {self.steps_done}: saved; continue with --resume {self.run_dir}")
            raise
        self.steps_done = model.num_timesteps
        self.save(model, checkpoint=False)
        final = save_checkpoint(self.run_dir / "final.pt", model.policy, self.metadata())
        self.log(f"trained {self.steps_done} steps; final policy {final}")
        return final

    # --------------------------------------------------------------- evaluate
    def evaluate(self, policy_path: Path) -> dict:
        return evaluate_policy(self.env_id, self.options, policy_path, self.config["eval"], self.seed, self.run_dir,
                               self.log, training_steps=int(self.steps_done))


def default_run_dir(env_id: str) -> Path:
    import time

    return Path("runs") / f"{canonical_id(env_id)}-{time.strftime('%Y%m%d-%H%M%S')}"


__all__ = ["SelfPlayRun", "default_run_dir"]
