"""League self-play PPO on Ray RLlib: ``training.train``'s self-play, on a Ray cluster.

    python -m training.rllib --config configs/highrise_heist.yaml --timesteps 100000
    python -m training.rllib --config configs/golden_rush.yaml --num-env-runners 8 --address auto
    python -m training.rllib --resume runs/highrise_heist_v0-20261204-120000   # after Ctrl-C, SIGTERM, a lost head

The YAML configs are ``training.train``'s and mean the same:

* ``pool``: the opponents, drawn per episode by the same rule (:mod:`training.league`): the
  current policy (RLlib module ``main``, the only one trained), the last ``pool.window``
  frozen snapshots (modules never trained) and the baselines, which play inside the env
  runners through the project's agents;
* ``train.timesteps``: the learner's decisions (module ``main``'s); the run stops after the
  iteration that reaches it, or after ``--iterations N`` iterations in all. A snapshot is
  taken every ``--snapshot-every`` iterations (default: about ``train.checkpoint_every``
  env steps); ``train.n_envs`` games are shared by the env runners; ``init_from``, ``seed``,
  ``torch_threads`` and ``quick_eval_games`` as in ``training.train``; RLlib's learner
  trains in float32 whatever ``train.precision`` says (the run's log says so), with RLlib's
  own Adam (``train.fused_adam`` is MaskablePPO's and expert iteration's);
* ``ppo``: RLlib's PPO set like MaskablePPO (:func:`training.league.league_config`);
* ``eval``: the closing tournament and its report files, ``training.train``'s, its games
  played as Ray tasks across the cluster. ``--eval-every K`` plays it every K iterations
  too, in this process (``eval.workers`` processes: the env runners hold the cluster's
  CPUs), as ``evaluation_iter<N>.{json,csv,png}``.

``--num-env-runners K`` samples in K Ray actors (0: in this process); ``--address`` joins a
running cluster (``auto``, or the head's ``HOST:PORT``; token authentication as in
:func:`training.cluster.connect`), otherwise a local Ray instance is started.

The run folder, written by this process only (so it may live on this machine, but resuming
after a lost head needs it on storage that survives the head): ``run_state.json`` (config,
counters, pool, and which RLlib checkpoint to resume from), ``rllib/iteration_<N>/`` (RLlib's
checkpoint: every module, snapshots included, the optimizer and RLlib's counters),
``policy.pt`` (after every iteration), ``checkpoints/iter_<N>.pt`` (each snapshot and
check-in), ``final.pt`` and ``evaluation.*``. Every iteration is saved, the RLlib checkpoint
before ``run_state.json`` (each renamed into place whole), so a run stopped anywhere resumes
from its last saved iteration; Ctrl-C and SIGTERM exit with 128 + the signal's number. The
``.pt`` files are project checkpoints: ``make_agent``, ``training.evaluate`` and the
Gymnasium view play them. Needs ``pip install "sky_envs[rllib]"`` on every node, and
checkpoint opponents in ``pool.baselines`` at the same path on every node.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from sky_envs.agents.checkpoint import policy_metadata
from sky_envs.core.registry import canonical_id, make_game
from .evaluate import evaluate_policy
from .league import LATEST, MAIN, League, league_config, league_modules, snapshot_module
from .run_arguments import add_run_arguments, run_config
from .run_folder import CHECKPOINTS, STATE, remove_leftovers, write_state
from .signals import TrainingInterrupted, deferred_interrupts, interrupts_as_keyboard
from .tournament import quick_scores
from .warm_start import initial_weights

ALGORITHM = "rllib"   # the folder of RLlib checkpoints in a run folder


class LeagueRun:
    """One league self-play run on RLlib in one folder; ``train()`` then ``evaluate()``
    (a :class:`~training.learner.Learner`, like ``training.train``'s runs).

    ``num_env_runners``, ``address``, ``token_auth``: where it runs
    (:func:`training.cluster.connect`); ``iterations``: stop after that many iterations in
    all instead of at ``train.timesteps``; ``snapshot_every``, ``eval_every``: iterations
    between snapshots and between check-in tournaments (0: none);
    ``train_batch_size``: env steps per iteration (default ``train.n_envs * ppo.n_steps``).
    """

    def __init__(self, config: dict, run_dir: str | Path, num_env_runners: int = 0, address: str | None = None,
                 iterations: int | None = None, snapshot_every: int | None = None, eval_every: int = 0,
                 train_batch_size: int | None = None, token_auth: bool | None = None, log=print):
        self.config = config
        self.env_id = canonical_id(config["env"]["id"])
        self.options = dict(config["env"]["options"])
        self.game = make_game(self.env_id, **self.options)  # validates the options now
        self.run_dir = Path(run_dir)
        self.log = log
        train = config["train"]
        self.seed = int(train["seed"])
        self.num_env_runners, self.address, self.token_auth = num_env_runners, address, token_auth
        self.train_batch_size = train_batch_size or train["n_envs"] * config["ppo"]["n_steps"]
        self.snapshot_every = snapshot_every or max(1, round(train["checkpoint_every"] / self.train_batch_size))
        for name, value in (("num_env_runners", num_env_runners), ("eval_every", eval_every)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
        for name, value in (("iterations", iterations), ("snapshot_every", self.snapshot_every),
                            ("train_batch_size", self.train_batch_size)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.iterations = iterations
        self.eval_every = eval_every
        self.steps_done = 0        # the learner's (module main's) decisions
        self.env_steps = 0         # every module's decisions
        self.iterations_done = 0
        self.seconds = 0.0
        self.quick_evals: list[dict] = []
        self.command = ""
        self.league = League(config["pool"]["window"])
        self.init_weights, self.init_from = initial_weights(config, run_dir)

    def metadata(self) -> dict:
        return policy_metadata(self.game, self.options, self.config["policy"], **self._training_record())

    def _training_record(self) -> dict:
        return {"algorithm": "RLlib PPO league self-play", "steps": int(self.steps_done),
                "iterations": self.iterations_done, "seed": self.seed, "wall_clock_s": round(self.seconds, 1),
                "command": self.command, **({"init_from": self.init_from} if self.init_from else {})}

    # ------------------------------------------------------------ the folder
    def _state(self, algorithm_dir: Path) -> dict:
        return {"env_id": self.env_id, "env_options": self.options, "config": self.config, "trainer": "rllib",
                "algorithm": os.path.relpath(algorithm_dir, self.run_dir), "iterations_done": self.iterations_done,
                "steps_done": self.steps_done, "env_steps": self.env_steps, "seconds": self.seconds,
                "stop": {"iterations": self.iterations}, "snapshot_every": self.snapshot_every,
                "command": self.command, "init_from": self.init_from, "quick_evals": self.quick_evals,
                "league": self.league.state()}

    def _load_state(self) -> dict:
        for path in remove_leftovers(self.run_dir):
            self.log(f"removed {path}, left by an interrupted write")
        state = read_league_state(self.run_dir)
        if state["env_id"] != self.env_id or state["env_options"] != self.options:
            raise ValueError(f"cannot resume: the run in {str(self.run_dir)!r} trained {state['env_id']} "
                             f"{state['env_options']}, not {self.env_id} {self.options}")
        self.iterations_done, self.steps_done = int(state["iterations_done"]), int(state["steps_done"])
        self.env_steps, self.seconds = int(state["env_steps"]), float(state["seconds"])
        self.quick_evals, self.init_from = list(state["quick_evals"]), state["init_from"]
        self.snapshot_every = state["snapshot_every"]
        if self.iterations is None:
            self.iterations = state["stop"]["iterations"]
        self.league = League.from_state(state["league"])
        if state.get("command") and self.command:
            self.command = f"{state['command']} ; {self.command}"
        keep = (self.run_dir / state["algorithm"]).resolve()
        for stale in (self.run_dir / ALGORITHM).iterdir():   # a newer save cut short before run_state.json
            if stale.resolve() != keep:
                shutil.rmtree(stale)
                self.log(f"removed {stale}, a save that run_state.json does not name")
        return state

    def _export(self, algorithm, path: Path) -> Path:
        from sky_envs.integrations.rllib import export_checkpoint

        return export_checkpoint(algorithm.get_module(MAIN), path, self.env_id, self.options, **self._training_record())

    def _save(self, algorithm, checkpoint: bool, check_in: bool) -> Path | None:
        """After an iteration: ``policy.pt``; with ``checkpoint`` or ``check_in`` also
        ``checkpoints/iter_<N>.pt`` (at a checkpoint it enters the league as a snapshot);
        then RLlib's checkpoint and ``run_state.json``, each renamed into place whole.
        Returns the iteration's checkpoint file, if any."""
        iteration = self.iterations_done
        self._export(algorithm, self.run_dir / "policy.pt")
        path = None
        if checkpoint or check_in:
            path = self._export(algorithm, self.run_dir / CHECKPOINTS / f"iter_{iteration:06d}.pt")
        if checkpoint and self.league.window > 0:
            self.league.take(algorithm, iteration, self.steps_done, os.path.relpath(path, self.run_dir))
        target = self.run_dir / ALGORITHM / f"iteration_{iteration:06d}"
        partial = target.with_name(target.name + ".partial")
        for leftover in (partial, target):
            if leftover.exists():
                shutil.rmtree(leftover)
        algorithm.save_to_path(str(partial.resolve()))
        os.replace(partial, target)
        write_state(self.run_dir, self._state(target),
                    [str(self.run_dir / s["checkpoint"]) for s in self.league.snapshots])
        for stale in (self.run_dir / ALGORITHM).iterdir():
            if stale != target:
                shutil.rmtree(stale)
        return path

    # ------------------------------------------------------------ training
    def _done(self) -> bool:
        if self.iterations is not None:
            return self.iterations_done >= self.iterations
        return self.steps_done >= self.config["train"]["timesteps"]

    def _connect(self) -> None:
        from .cluster import connect

        connect(self.address, self.token_auth, log_to_driver=self.num_env_runners > 0)

    def _build(self, resume: bool):
        import torch

        torch.set_num_threads(int(self.config["train"]["torch_threads"]))
        if self.config["train"]["precision"] != "float32":
            self.log(f"train.precision {self.config['train']['precision']}: RLlib's learner trains in float32")
        # a resumed run plays new games, not the ones the run began with
        seed = int(np.random.SeedSequence([self.seed, self.iterations_done]).generate_state(1)[0] % 2**31)
        algorithm = league_config(self.config, self.num_env_runners, self.train_batch_size, seed).build_algo()
        if resume:
            state = read_league_state(self.run_dir)
            algorithm.restore_from_path(str((self.run_dir / state["algorithm"]).resolve()))
        elif self.init_weights is not None:
            weights = self.init_weights
            algorithm.learner_group.foreach_learner(lambda learner: learner.module[MAIN].policy.load_state_dict(weights))
        # every module's weights, from the learner: snapshot slots included, whatever RLlib synced
        modules = [MAIN] + [snapshot_module(s["slot"]) for s in self.league.snapshots]
        self.league.publish(algorithm, algorithm.learner_group.get_weights(module_ids=modules))
        return algorithm

    def train(self, resume: bool = False, callback=None) -> Path:
        """Train until the stop rule (continuing the run saved in ``run_dir`` with
        ``resume``); returns ``final.pt``. ``callback(run, algorithm, result)`` is called after
        each saved iteration with RLlib's ``Algorithm`` and result; ``False`` stops the run there."""
        if resume:
            self._load_state()
            self.log(f"resuming {self.env_id} after iteration {self.iterations_done} "
                     f"({self.steps_done:,} learner steps) from {self.run_dir}")
        elif (self.run_dir / STATE).exists():
            raise ValueError(f"{str(self.run_dir)!r} already holds a run: pass resume=True (--resume) or another folder")
        latest = LATEST in league_modules(self.config["pool"])
        self._connect()   # before the block: ray.init sets a SIGTERM handler of its own
        with interrupts_as_keyboard():
            algorithm = None
            try:
                algorithm = self._build(resume)
                iteration_ended = time.perf_counter()
                while not self._done():
                    if latest:
                        self.league.refresh_latest(algorithm)
                    started = time.perf_counter()
                    result = algorithm.train()
                    runners = result["env_runners"]
                    with deferred_interrupts():
                        self.seconds += time.perf_counter() - started
                        self.iterations_done += 1
                        new_steps = int(runners.get("league", {}).get("learner_decisions", 0))
                        self.steps_done += new_steps
                        self.env_steps += int(runners.get("num_env_steps_sampled", 0))
                        checkpoint = self.iterations_done % self.snapshot_every == 0
                        check_in = self.eval_every > 0 and self.iterations_done % self.eval_every == 0
                        path = self._save(algorithm, checkpoint, check_in)
                    now = time.perf_counter()   # the whole loop: sampling, update, saves, evaluations
                    self.log(self._progress_line(runners, new_steps / (now - iteration_ended)))
                    iteration_ended = now
                    if checkpoint:
                        self._quick_eval(path)
                    if check_in:
                        evaluate_policy(self.env_id, self.options, path, self.config["eval"], self.seed, self.run_dir,
                                        self.log, stem=f"evaluation_iter{self.iterations_done:06d}",
                                        training_steps=self.steps_done, iterations=self.iterations_done)
                    if callback is not None and callback(self, algorithm, result) is False:
                        break
                with deferred_interrupts():
                    final = self._export(algorithm, self.run_dir / "final.pt")
            except KeyboardInterrupt:   # Ctrl-C or SIGTERM (TrainingInterrupted): the last iteration is saved
                self.log(f"interrupted after iteration {self.iterations_done}: saved; "
                         f"continue with --resume {self.run_dir}")
                raise
            finally:
                if algorithm is not None:
                    algorithm.stop()
        self.log(f"trained {self.iterations_done} iterations, {self.steps_done:,} learner steps "
                 f"in {self.seconds:.0f} s; final policy {final}")
        return final

    def _progress_line(self, runners: dict, rate: float) -> str:
        scores = ", ".join(f"{name.removeprefix('score_vs_')} {float(value):.2f}"
                           for name, value in sorted(runners.get("league", {}).items())
                           if name.startswith("score_vs_") and np.isfinite(value))
        return (f"iteration {self.iterations_done}: {self.steps_done:,} learner steps ({self.env_steps:,} env steps), "
                f"{rate:,.0f} learner steps/s" + (f"; the learner's score vs {scores}" if scores else ""))

    def _quick_eval(self, path: Path) -> dict:
        from sky_envs.agents import PolicyAgent

        policy = PolicyAgent.load(path, env_id=self.env_id, env_options=self.options).policy
        scores = {"steps": self.steps_done, "iterations": self.iterations_done,
                  **quick_scores(self.env_id, self.options, policy, self.config["train"]["quick_eval_games"],
                                 seed=10_000 + self.steps_done % 997, agent_seed=self.seed)}
        self.quick_evals.append(scores)
        self.log(f"checkpoint {path.name}: score vs random {scores['random']:.2f}, vs greedy {scores['greedy']:.2f}")
        return scores

    # ------------------------------------------------------------ evaluation
    def evaluate(self, policy_path: Path) -> dict:
        """``training.train``'s closing tournament of ``policy_path``, its games as Ray tasks
        on the cluster (joined if this process is not connected yet)."""
        self._connect()
        return evaluate_policy(self.env_id, self.options, policy_path, self.config["eval"], self.seed, self.run_dir,
                               self.log, cluster=True, training_steps=int(self.steps_done),
                               iterations=self.iterations_done)


def read_league_state(run_dir: Path) -> dict:
    """``run_state.json`` of an RLlib league run, checked: it names an RLlib checkpoint that exists."""
    path = Path(run_dir) / STATE
    if not path.is_file():
        raise ValueError(f"cannot resume: {str(path)!r} does not exist (a run writes it after its first iteration)")
    state = json.loads(path.read_text())
    if state.get("trainer") != "rllib":
        raise ValueError(f"cannot resume {str(run_dir)!r} with training.rllib: it is a training.train run "
                         "(python -m training.train --resume)")
    if not (Path(run_dir) / state["algorithm"]).is_dir():
        raise ValueError(f"cannot resume: the RLlib checkpoint {state['algorithm']!r} is missing from {str(run_dir)!r}")
    return state


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    from sky_envs.core.arguments import HelpFormatter, module_prog

    parser = argparse.ArgumentParser(prog=prog or module_prog(__spec__), description=__doc__,
                                     formatter_class=HelpFormatter)
    add_run_arguments(parser, "override train.timesteps (the learner's decisions)")
    parser.add_argument("--iterations", type=int, help="stop after this many iterations in all (instead of timesteps)")
    parser.add_argument("--num-env-runners", type=int, default=0, help="sampling actors (default 0: in this process)")
    parser.add_argument("--address", help="a running Ray cluster to join ('auto' or HOST:PORT); default: a local instance")
    parser.add_argument("--train-batch-size", type=int, help="env steps per iteration (default train.n_envs * ppo.n_steps)")
    parser.add_argument("--snapshot-every", type=int,
                        help="iterations between frozen snapshots (default: about train.checkpoint_every env steps)")
    parser.add_argument("--eval-every", type=int, default=0, help="a check-in tournament every K iterations (default: none)")
    parser.add_argument("--no-eval", action="store_true", help="skip the final evaluation")
    args = parser.parse_args(argv)

    try:
        config, run_dir = run_config(args, lambda run_dir: read_league_state(run_dir)["config"])
        run = LeagueRun(config, run_dir, args.num_env_runners, args.address, args.iterations, args.snapshot_every,
                        args.eval_every, args.train_batch_size)
        run.command = shlex.join([sys.executable, "-m", "training.rllib", *(argv if argv is not None else sys.argv[1:])])
    except ValueError as error:
        parser.error(str(error))
    import ray

    try:
        final = run.train(resume=bool(args.resume))
        if not args.no_eval:
            with interrupts_as_keyboard():
                run.evaluate(final)
    except TrainingInterrupted as stop:
        if (run.run_dir / "final.pt").is_file():   # stopped in the closing tournament: the run is saved
            print(f"evaluation stopped by {stop}: evaluate {run.run_dir / 'final.pt'} with python -m "
                  f"{__package__}.evaluate", file=sys.stderr)
        return 128 + stop.signum
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
