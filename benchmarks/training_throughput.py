"""Learner steps/s of self-play training, side by side with PettingZoo's SB3 tutorial recipe.

    python benchmarks/training_throughput.py                        # configs/sky_scrapers.yaml
    python benchmarks/training_throughput.py configs/*.yaml         # every game
    python benchmarks/training_throughput.py --budgets 8192 24576 configs/skybridge.yaml
    python benchmarks/training_throughput.py --rounds 3 --json out.json configs/*.yaml   # also as JSON

Both sides are measured in this one run, as a *marginal* rate: each is trained twice, to a
small and a larger budget, and the rate is (difference in learner steps) / (difference in
wall time), so start-up (imports, model construction, the first reset) cancels out. Each is
first trained once, unmeasured, for one rollout: what happens once per process (compiling
the batched engines' and the heuristics' kernels) would otherwise fall on the small run
alone, and the difference could even be negative.

* ``training.train``: ``SelfPlayRun.train()`` on the config as shipped (opponent pool,
  checkpoints and quick evaluations included; the end-of-run evaluation is not part of
  ``train()``). Its budgets default to 2 and 6 rollouts of the config's PPO settings.
* the tutorial: PettingZoo's "SB3: Action Masked PPO for Connect Four" recipe, one
  ``MaskablePPO`` (default settings) playing both seats of ``connect_four_v3`` through an
  AEC-to-Gymnasium wrapper; the wrapper is the tutorial's, also made a ``gymnasium.Env``
  because today's Gymnasium requires it.

Each side runs torch at its own best: the configs with their ``train.torch_threads``, the
tutorial with one thread and with two (torch's default on the 2-core machine), its faster
rate of the round being the anchor (its small updates have run erratic and slower on two
threads). Each round measures the tutorial, then every config; the table gives the median
over ``--rounds`` of each rate and of each ratio to the same round's anchor. Each
measurement runs in a fresh process of its own (its warm-up, then its two budgets), as a
user runs one training per process: nothing one run leaves in a process (a self-play run's
allocator settings, :mod:`training.allocator`; threads, caches, a fragmented heap) reaches
another.

Two clocks: wall time (what a user waits for, the figure of record) and this process's
CPU time, which a busy machine hardly disturbs (with one process and one torch thread the
two agree on an idle machine; on two threads CPU time adds both threads' seconds; it does
not see worker processes, so it is left out for ``train.processes`` > 1).

A learner step is one decision the learner trains on. Timings live here, never in tests.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from statistics import median
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing


class Clocks:
    """Wall and CPU seconds of a ``with`` block."""

    def __enter__(self) -> Clocks:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall, self.cpu = time.perf_counter() - self._wall, time.process_time() - self._cpu


def tutorial_run(steps: int, seed: int = 0) -> tuple[int, Clocks]:
    """(steps, clocks) of the tutorial's ``model.learn(steps)`` on connect_four_v3."""
    import gymnasium
    import pettingzoo.utils
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            current_agent = self.agent_selection
            super().step(action)
            next_agent = self.agent_selection
            return (self.observe(next_agent), self._cumulative_rewards[current_agent],
                    self.terminations[current_agent], self.truncations[current_agent], self.infos[current_agent])

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    env = SB3ActionMaskWrapper(connect_four_v3.env())
    env.reset(seed=seed)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, verbose=0)
    model.set_random_seed(seed)
    with Clocks() as clocks, contextlib.redirect_stdout(io.StringIO()):
        model.learn(total_timesteps=steps)
    return steps, clocks


def in_fresh_process(*arguments: str):
    """What this script prints as its last line (JSON) when run with ``arguments``: one
    measurement in a process of its own (:func:`tutorial_process`, :func:`config_process`)."""
    command = [sys.executable, __file__, *arguments]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()[-1])


def tutorial_process(threads: int, small: int, large: int) -> None:
    """The tutorial's marginal rates with ``threads`` torch threads after a warm-up, printed
    as one line of JSON."""
    import torch

    torch.set_num_threads(threads)
    tutorial_run(small // 4)   # the warm-up: what a process does once is not measured
    print(json.dumps(marginal(tutorial_run(small), tutorial_run(large))))


def config_process(path: str, small: int, large: int, overrides: list[str]) -> None:
    """A config's marginal rates between budgets ``small`` and ``large`` after a one-rollout
    warm-up, and the opponents' shares of the larger run, printed as one line of JSON."""
    import yaml

    from training.config import load_config

    config = load_config(path, **{key: yaml.safe_load(value) for key, _, value in
                                  (item.partition("=") for item in overrides)})
    selfplay_run(config, config["train"]["n_envs"] * config["ppo"]["n_steps"])   # the warm-up
    first, second = selfplay_run(config, small), selfplay_run(config, large)
    rates = marginal(first, second)
    if config["train"]["processes"] > 1:
        rates["cpu"] = float("nan")
    print(json.dumps({"rates": rates, "shares": second[2]}))


def selfplay_run(config: dict, steps: int) -> tuple[int, Clocks, dict[str, float]]:
    """(learner steps done, clocks of ``SelfPlayRun.train()``, each opponent's share of its
    wall time) for a budget of ``steps``; checkpoints count as one opponent."""
    from training.selfplay import SelfPlayRun

    config = {**config, "train": {**config["train"], "timesteps": steps}}
    with tempfile.TemporaryDirectory() as run_dir:
        run = SelfPlayRun(config, run_dir, progress=False, log=lambda *a: None)
        with Clocks() as clocks:
            run.train()
    shares: dict[str, float] = {}
    for name, spent in run.decision_seconds.items():
        key = "checkpoints" if name.startswith("step_") else name
        shares[key] = shares.get(key, 0.0) + spent / clocks.wall
    return run.steps_done, clocks, shares


def marginal(first: tuple, second: tuple) -> dict[str, float]:
    """Learner steps/s between two runs given as (steps, clocks, ...), by wall and CPU time."""
    steps = second[0] - first[0]
    return {clock: steps / max(getattr(second[1], clock) - getattr(first[1], clock), 1e-9) for clock in ("wall", "cpu")}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="*", default=[str(ROOT / "configs" / "sky_scrapers.yaml")])
    parser.add_argument("--budgets", nargs=2, type=int, metavar=("SMALL", "LARGE"),
                        help="learner-step budgets of the self-play runs (default: 2 and 6 rollouts)")
    parser.add_argument("--tutorial-budgets", nargs=2, type=int, default=[4096, 12288], metavar=("SMALL", "LARGE"))
    parser.add_argument("--tutorial-threads", nargs="+", type=int, default=[1, 2], metavar="N",
                        help="torch thread counts the tutorial is measured with (its fastest is the anchor)")
    parser.add_argument("--rounds", type=int, default=1, help="repeat every measurement, report medians")
    parser.add_argument("--json", metavar="PATH", help="also write the table (rates, ratios, shares) as JSON")
    parser.add_argument("--set", nargs="*", default=[], metavar="SECTION.KEY=VALUE",
                        help="config overrides for every self-play run, e.g. train.processes=2 (YAML values)")
    parser.add_argument("--tutorial-process", nargs=3, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--config-process", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tutorial_process:
        return tutorial_process(*args.tutorial_process)
    if args.config_process:
        path, small, large = args.config_process
        return config_process(path, int(small), int(large), args.set)
    from training.config import load_config

    configs = [load_config(path) for path in args.configs]   # the files checked before anything runs
    rows: dict[str, list[tuple[dict, dict]]] = {}  # name -> per round (rates, ratios)
    shares: dict[str, dict[str, float]] = {}
    for _ in range(args.rounds):
        tutorials = {threads: in_fresh_process("--tutorial-process", str(threads), *map(str, args.tutorial_budgets))
                     for threads in args.tutorial_threads}
        tutorial = {clock: max(rates[clock] for rates in tutorials.values()) for clock in ("wall", "cpu")}
        for threads, rates in tutorials.items():
            rows.setdefault(tutorial_name(threads), []).append(
                (rates, {clock: rates[clock] / tutorial[clock] for clock in rates}))
        for path, config in zip(args.configs, configs):
            rollout = config["train"]["n_envs"] * config["ppo"]["n_steps"]
            small, large = args.budgets or (2 * rollout, 6 * rollout)
            measured = in_fresh_process("--config-process", str(path), str(small), str(large), "--set", *args.set)
            rates = measured["rates"]
            rows.setdefault(Path(path).name, []).append((rates, {k: rates[k] / tutorial[k] for k in rates}))
            shares[Path(path).name] = measured["shares"]
    print(f"{'run':<40}{'steps/s wall':>13}{'x tutorial':>11}{'steps/s cpu':>13}{'x tutorial':>11}"
          f"   opponents' share of the larger run's wall time")
    table = {}
    for name, measured in rows.items():
        table[name] = {"steps_per_s": {clock: median([m[0][clock] for m in measured]) for clock in ("wall", "cpu")},
                       "x_tutorial": {clock: median([m[1][clock] for m in measured]) for clock in ("wall", "cpu")},
                       "opponent_shares": shares.get(name, {})}
        cells = "".join(f"{table[name]['steps_per_s'][clock]:>13,.0f}{table[name]['x_tutorial'][clock]:>11.2f}"
                        for clock in ("wall", "cpu"))
        spent = ", ".join(f"{who} {share:.0%}" for who, share in sorted(shares.get(name, {}).items(), key=lambda kv: -kv[1]))
        print(f"{name:<40}{cells}   {spent}")
    print("(x tutorial: against the tutorial's faster thread count of the same round, clock by clock)")
    if args.rounds > 1:
        print(f"(medians of {args.rounds} rounds)")
    if args.json:
        command = " ".join(["python", "benchmarks/training_throughput.py", *(sys.argv[1:] if argv is None else argv)])
        Path(args.json).write_text(json.dumps({"command": command, "rounds": args.rounds, "runs": table}, indent=1))


def tutorial_name(threads: int) -> str:
    return f"SB3 tutorial, connect_four, {threads} thread{'s' if threads > 1 else ''}"


if __name__ == "__main__":
    main()
