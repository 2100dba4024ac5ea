"""Learner steps/s of self-play training, side by side with PettingZoo's SB3 tutorial recipe.

    python benchmarks/training_throughput.py                        # configs/sky_scrapers.yaml
    python benchmarks/training_throughput.py configs/*.yaml         # every game
    python benchmarks/training_throughput.py --budgets 8192 24576 configs/skybridge.yaml

Both sides are measured in this one run, as a *marginal* rate: each is trained twice, to a
small and a larger budget, and the rate is (difference in learner steps) / (difference in
wall time), so start-up (imports, model construction, the first reset) cancels out.

* ``training.train``: ``SelfPlayRun.train()`` on the config as shipped (opponent pool,
  checkpoints and quick evaluations included; the end-of-run evaluation is not part of
  ``train()``). Its budgets default to 2 and 6 rollouts of the config's PPO settings.
* the tutorial: PettingZoo's "SB3: Action Masked PPO for Connect Four" recipe, one
  ``MaskablePPO`` (default settings) playing both seats of ``connect_four_v3`` through an
  AEC-to-Gymnasium wrapper; the wrapper is the tutorial's, also made a ``gymnasium.Env``
  because today's Gymnasium requires it.

Both run torch on one thread (the configs' ``train.torch_threads``; on the shared 2-core
machine torch's default of two threads makes the tutorial's small updates erratic, and
slower). The tutorial is measured before and after the self-play runs and the mean is the
reference, so a machine whose load changes during the run skews the ratio less.

A learner step is one decision the learner trains on. Timings live here, never in tests.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing


def tutorial_seconds(steps: int, seed: int = 0) -> float:
    """Wall time of the tutorial's ``model.learn(steps)`` on connect_four_v3."""
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
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return time.perf_counter() - start


def selfplay_run(config: dict, steps: int) -> tuple[int, float, dict[str, float]]:
    """(learner steps done, wall time of ``SelfPlayRun.train()``, each opponent's share of
    that time) for a budget of ``steps``; checkpoints count as one opponent."""
    from training.selfplay import SelfPlayRun

    config = {**config, "train": {**config["train"], "timesteps": steps}}
    with tempfile.TemporaryDirectory() as run_dir:
        run = SelfPlayRun(config, run_dir, progress=False, log=lambda *a: None)
        start = time.perf_counter()
        run.train()
        seconds = time.perf_counter() - start
    shares: dict[str, float] = {}
    for name, spent in run.decision_seconds.items():
        key = "checkpoints" if name.startswith("step_") else name
        shares[key] = shares.get(key, 0.0) + spent / seconds
    return run.steps_done, seconds, shares


def marginal(first: tuple, second: tuple) -> float:
    """Learner steps/s between two runs, from their (steps, seconds, ...)."""
    (steps_a, seconds_a), (steps_b, seconds_b) = first[:2], second[:2]
    return (steps_b - steps_a) / max(seconds_b - seconds_a, 1e-9)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="*", default=[str(ROOT / "configs" / "sky_scrapers.yaml")])
    parser.add_argument("--budgets", nargs=2, type=int, metavar=("SMALL", "LARGE"),
                        help="learner-step budgets of the self-play runs (default: 2 and 6 rollouts)")
    parser.add_argument("--tutorial-budgets", nargs=2, type=int, default=[4096, 12288], metavar=("SMALL", "LARGE"))
    parser.add_argument("--set", nargs="*", default=[], metavar="SECTION.KEY=VALUE",
                        help="config overrides for every self-play run, e.g. train.processes=2 (YAML values)")
    args = parser.parse_args(argv)
    import yaml

    from training.config import load_config

    overrides = {}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = yaml.safe_load(value)
    configs = [load_config(path, **overrides) for path in args.configs]

    import torch

    torch.set_num_threads(1)

    def tutorial_rate() -> float:
        small, large = args.tutorial_budgets
        with contextlib.redirect_stdout(io.StringIO()):
            return marginal((small, tutorial_seconds(small)), (large, tutorial_seconds(large)))

    before = tutorial_rate()
    results = []
    for config in configs:
        rollout = config["train"]["n_envs"] * config["ppo"]["n_steps"]
        small, large = args.budgets or (2 * rollout, 6 * rollout)
        first, second = selfplay_run(config, small), selfplay_run(config, large)
        results.append((marginal(first, second), second[2]))
    after = tutorial_rate()
    tutorial = (before + after) / 2
    print(f"{'run':<40}{'learner steps/s':>16}{'x tutorial':>12}   opponents' share of the larger run")
    print(f"{'PettingZoo SB3 tutorial (connect_four_v3)':<40}{tutorial:>16,.0f}{1.0:>12.2f}"
          f"   (tutorial before {before:,.0f}, after {after:,.0f})")
    for path, (rate, shares) in zip(args.configs, results):
        spent = ", ".join(f"{name} {share:.0%}" for name, share in sorted(shares.items(), key=lambda kv: -kv[1]))
        print(f"{Path(path).name:<40}{rate:>16,.0f}{rate / tutorial:>12.2f}   {spent}")


if __name__ == "__main__":
    main()
