"""Shared-policy self-play PPO with action masking on Ray RLlib: the scale-out path.

    python -m training.rllib --config configs/sky_scrapers.yaml --iterations 20
    python -m training.rllib --config configs/golden_rush.yaml --num-env-runners 8 --address auto

Every seat plays the one shared policy (``ProjectNetworkModule``: the config's ``policy``
network spec, masked). The ``ppo`` section maps onto RLlib's PPO (learning_rate, gamma,
gae_lambda, ent_coef, clip_range, vf_coef, n_epochs; batch_size is the minibatch size, and
a training batch is ``train.n_envs * ppo.n_steps`` env steps unless ``--train-batch-size``
says otherwise; a minibatch is never larger than a training batch). ``--num-env-runners K`` samples in K Ray actors (0: in this process);
``--address`` joins a running Ray cluster (``auto``, or ``HOST:PORT``), otherwise a local
Ray instance is started. After every iteration the policy is exported to
``RUN_DIR/policy.pt``, a project checkpoint: ``python -m training.evaluate --config ...
--agents random greedy RUN_DIR/policy.pt`` plays it, and so do ``make_agent`` and the
Gymnasium view. Needs ``pip install "sky_envs[rllib]"``, on every node of a cluster.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from .config import load_config
from .selfplay import default_run_dir

SHARED = "shared"


def ppo_config(config: dict, num_env_runners: int = 0, train_batch_size: int | None = None,
               rollout_fragment_length: int | str = "auto"):
    """RLlib's ``PPOConfig`` for a project config (see the module docstring)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from sky_envs.integrations.rllib import ProjectNetworkModule, SkyMultiAgentEnv

    ppo, train = config["ppo"], config["train"]
    train_batch_size = train_batch_size or train["n_envs"] * ppo["n_steps"]
    module = RLModuleSpec(module_class=ProjectNetworkModule, model_config={"network": config["policy"]})
    return (
        PPOConfig()
        .environment(SkyMultiAgentEnv, env_config={"env_id": config["env"]["id"], "options": config["env"]["options"]})
        .multi_agent(policies={SHARED}, policy_mapping_fn=lambda agent_id, episode, **kwargs: SHARED)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED: module}))
        .env_runners(num_env_runners=num_env_runners, rollout_fragment_length=rollout_fragment_length)
        .training(train_batch_size_per_learner=train_batch_size,
                  minibatch_size=min(ppo["batch_size"], train_batch_size), num_epochs=ppo["n_epochs"], lr=ppo["learning_rate"],
                  gamma=ppo["gamma"], lambda_=ppo["gae_lambda"], entropy_coeff=ppo["ent_coef"],
                  clip_param=ppo["clip_range"], vf_loss_coeff=ppo["vf_coef"])
        .debugging(seed=train["seed"])
    )


def train(config: dict, run_dir: Path, iterations: int, num_env_runners: int = 0, address: str | None = None,
          train_batch_size: int | None = None, command: str = "", log=print) -> Path:
    """Start (or join, with ``address``) Ray, build PPO, run :func:`run_iterations`, stop."""
    import ray

    if num_env_runners < 0:
        raise ValueError(f"num_env_runners must be >= 0, got {num_env_runners!r}")
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=num_env_runners > 0)
    algorithm = ppo_config(config, num_env_runners, train_batch_size).build_algo()
    try:
        return run_iterations(algorithm, config, run_dir, iterations, command, log)
    finally:
        algorithm.stop()


def run_iterations(algorithm, config: dict, run_dir: Path, iterations: int, command: str = "", log=print) -> Path:
    """Train ``algorithm`` for ``iterations`` iterations, exporting the shared policy to
    ``run_dir/policy.pt`` after each; the path."""
    from sky_envs.integrations.rllib import export_checkpoint

    if iterations < 1:
        raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
    env = config["env"]
    path = Path(run_dir) / "policy.pt"
    start, steps = time.time(), 0
    for iteration in range(1, iterations + 1):
        result = algorithm.train()
        runners = result.get("env_runners", {})
        steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
        log(f"iteration {iteration}/{iterations}: {steps:,} env steps, "
            f"{int(runners.get('num_episodes_lifetime', 0)):,} games, "
            f"mean length {runners.get('episode_len_mean', float('nan')):.1f}")
        export_checkpoint(algorithm.get_module(SHARED), path, env["id"], env["options"],
                          algorithm="RLlib PPO shared-policy self-play", steps=steps, iterations=iteration,
                          seed=config["train"]["seed"], command=command, seconds=round(time.time() - start, 1))
    log(f"policy: {path} (python -m {__package__}.evaluate --env {env['id']} --agents random greedy {path})")
    return path


def main(argv: list[str] | None = None) -> int:
    from sky_envs.core.arguments import HelpFormatter, module_prog

    parser = argparse.ArgumentParser(prog=module_prog(__spec__), description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--config", required=True, help="a YAML file in configs/")
    parser.add_argument("--iterations", type=int, default=10, help="PPO iterations (default 10)")
    parser.add_argument("--num-env-runners", type=int, default=0, help="sampling actors (default 0: in this process)")
    parser.add_argument("--address", help="a running Ray cluster to join ('auto' or HOST:PORT); default: a local instance")
    parser.add_argument("--train-batch-size", type=int, help="env steps per iteration (default train.n_envs * ppo.n_steps)")
    parser.add_argument("--run-dir", help="where policy.pt is written (default: runs/<env>-<time>)")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    run_dir = Path(args.run_dir) if args.run_dir else default_run_dir(config["env"]["id"])
    command = shlex.join([sys.executable, "-m", "training.rllib", *(argv if argv is not None else sys.argv[1:])])
    train(config, run_dir, args.iterations, args.num_env_runners, args.address, args.train_batch_size, command=command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
