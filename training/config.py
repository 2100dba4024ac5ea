"""Training configuration: YAML files in ``configs/`` merged over these defaults.

Every key is checked: a misspelt key is an error, not a silently ignored setting.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

DEFAULTS: dict[str, Any] = {
    # mixture: the option sets each iteration's games are drawn from (training.mixture; alphazero only)
    "env": {"id": None, "options": {}, "mixture": []},
    "train": {
        "algorithm": "ppo",         # "ppo" (MaskablePPO self-play) or "alphazero" (search-based expert iteration)
        "timesteps": 200_000,       # learner steps (at least; a run stops after a whole rollout)
        "n_envs": 128,              # games played in lockstep (one VecEnv slot each; opponents batched)
        "processes": 1,             # worker processes the games are spread over (1: fastest on 2 cores)
        "seed": 0,
        "checkpoint_every": 20_000,  # steps between checkpoints, pool updates and quick evaluations
        "quick_eval_games": 20,     # games against each baseline at every checkpoint
        # torch's threads in the learner: on the 2-core machine PPO's updates (batches of 1,024)
        # run 1.2-1.5x faster on two (benchmarks/training_throughput.py); runs stay the same run
        # to run, with other weights than on one. Recipes run every stage on one.
        "torch_threads": 2,
        # the learner's trunk matrix products: "float32", "bfloat16" (torch autocast on the
        # CPU; weights, heads and losses float32: about 3x faster products on a CPU with
        # bfloat16 units, AMX, other numbers than float32's; PPO, dense and pairs heads), or
        # "auto": bfloat16 where the CPU has bfloat16 units, else float32
        "precision": "float32",
        # Adam (PPO) and AdamW (expert iteration) as torch's fused kernel: one pass over each
        # weight per step instead of about ten (about 10% of a PPO update here, more with a wide
        # head); the same update up to float32 rounding. Recipes use the per-tensor kernel, as
        # the shipped networks were trained. RLlib's learner keeps its own optimizer.
        "fused_adam": True,
        "init_from": None,          # a checkpoint whose weights the network starts from (fine-tuning); None: random
    },
    # MaskablePPO's arguments; a rollout is n_envs * n_steps learner steps (4096 here), trained
    # on in n_epochs passes of batch_size: two passes of large batches keep the update from
    # dominating the step (more, smaller passes cost more per step and learned no more)
    "ppo": {
        "n_steps": 32, "batch_size": 1024, "n_epochs": 2, "learning_rate": 1.0e-3,
        "gamma": 0.99, "gae_lambda": 0.95, "ent_coef": 0.01, "clip_range": 0.2, "vf_coef": 0.5,
    },
    # the network: a spec of sky_envs.agents.network ("mlp" or "resnet"), used by both learners
    "policy": {"kind": "mlp", "hidden": [256, 256], "activation": "relu"},
    # expert iteration (train.algorithm = alphazero): PUCT self-play, the network learns the
    # search's visit distribution and the games' outcomes; timesteps count recorded decisions
    "alphazero": {
        "simulations": 64,          # PUCT simulations per self-play decision
        "parallel_games": 32,       # games searched in lockstep (one batched network call per simulation)
        "c_puct": 1.5,
        "temperature_moves": 8,     # decisions per game sampled from the visit counts, then the most visited
        "noise_fraction": 0.25,     # Dirichlet noise mixed into the root priors
        "noise_alpha": 10.0,        # total concentration, spread over the legal actions
        "buffer_size": 50_000,      # recorded decisions kept for training
        "batch_size": 256,
        "learning_rate": 1.0e-3,
        "weight_decay": 1.0e-4,
        "replay_ratio": 4.0,        # samples trained on per new decision recorded
        "policy_target": "visits",  # "visits": the visit distribution; "best": the most visited moves, equal shares;
                                    # "gumbel": Gumbel search's improved policy (self-play then searches and plays with the Gumbel root)
        "gumbel_k": 16,             # policy_target gumbel: root actions sampled by Gumbel-top-k
        "c_scale": 1.0,             # policy_target gumbel: the weight of Q against the logits in sigma(Q)
        "value_target": "outcome",  # "outcome": the game's result; "search": the search's root value; "mean": their mean
        "rollout_weight": 0.0,      # λ: leaf values are (1-λ)·network value + λ·one playout's result
        "rollout_policy": "random", # how playouts move: random, or greedy (games with move values)
        "solver": False,            # back up proven wins and losses exactly (perfect-information games)
        "exact_nodes": 0,           # solve each searched root (self-play's or the expert's) exactly within this many
                                    # nodes first and keep the moves proven to keep its value (0: off)
        "opponents": {},            # share of the games a baseline plays all seats but the learner's, e.g. {greedy: 0.25}
        "expert": None,             # None: PUCT search decides and teaches; "alphabeta@D" or "policy.pt@N": that searcher does instead
        "expert_moves": 1.0,        # with an expert: share of the learner's decisions it plays (the network the rest)
        "symmetries": False,        # train on each sample in a random symmetry of the board (games that have them)
    },
    "pool": {
        "latest": 0.5,              # chance an episode is played against the current policy
        "learn_from_latest": True,  # the learner plays the current policy's seats itself: both sides are trained on
        "window": 5,                # how many past checkpoints stay in the pool
        "baselines": ["random", "greedy"],
    },
    # search_simulations > 0 also enters the policy with PUCT search at that budget
    # workers: processes that share each pairing's games (the same results as one)
    "eval": {"games": 40, "opponents": ["random", "greedy", "mcts"], "mcts_simulations": 50, "search_simulations": 0,
             "workers": 2},
}


#: train.precision: the learner's trunk dtype, or "auto": bfloat16 where the CPU has bfloat16 units
PRECISIONS = ("float32", "bfloat16", "auto")


def trunk_dtype(precision: str):
    """The ``LegalActionsPolicy.trunk_dtype`` of a ``train.precision`` on this machine: None
    for float32 (and for ``auto`` on a CPU without bfloat16 units)."""
    import torch

    if precision == "auto":
        precision = "bfloat16" if cpu_has_bfloat16_units() else "float32"
    return None if precision == "float32" else getattr(torch, precision)


def cpu_has_bfloat16_units() -> bool:
    """Whether torch finds bfloat16 matrix instructions on this CPU (AMX tiles or AVX-512
    BF16); without them ``train.precision: bfloat16`` is emulated, and slower than float32."""
    import torch

    checks = [getattr(torch.cpu, name, None) for name in ("_is_amx_tile_supported", "_is_avx512_bf16_supported")]
    return any(check() for check in checks if check is not None)


def _merge(base: dict, override: dict, where: str) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if key not in base:
            raise ValueError(f"unknown config key '{where}{key}': expected one of {sorted(base)}")
        if key == "policy" and isinstance(value, dict) and value.get("kind", base[key].get("kind")) != base[key].get("kind"):
            out[key] = dict(value)  # another kind of network: its own keys, checked by validate()
        elif key == "policy" and isinstance(value, dict):
            out[key] = {**base[key], **value}
        elif isinstance(base[key], dict) and key not in ("options", "opponents"):  # free-form mappings, checked by validate()
            if not isinstance(value, dict):
                raise ValueError(f"config key '{where}{key}' must be a mapping, got {value!r}")
            out[key] = _merge(base[key], value, f"{where}{key}.")
        else:
            out[key] = value
    return out


def load_config(path: str | Path | None = None, **overrides: Any) -> dict:
    """Defaults, then the YAML file, then ``overrides`` given as ``section.key=value``."""
    config = copy.deepcopy(DEFAULTS)
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"config file {str(path)!r} does not exist")
        data = yaml.safe_load(path.read_text()) or {}
        if not isinstance(data, dict):
            raise ValueError(f"config file {str(path)!r} must hold a mapping of sections {sorted(DEFAULTS)}")
        config = _merge(config, data, "")
    return _finish(config, overrides)


def resumed_config(stored: dict, **overrides: Any) -> dict:
    """The config a run saved in its ``run_state.json``, completed with the defaults of keys
    added since, then ``overrides`` (``section.key=value``)."""
    return _finish(_merge(copy.deepcopy(DEFAULTS), stored, ""), overrides)


def _finish(config: dict, overrides: dict) -> dict:
    for dotted, value in overrides.items():
        section, _, key = dotted.partition(".")
        config = _merge(config, {section: {key: value} if key else value}, "")
    if not config["env"]["id"]:
        raise ValueError("the config names no env: set env.id (e.g. sky_scrapers_v0)")
    validate(config)
    return config


def expert_error(expert) -> str | None:
    """Why ``expert`` is not a valid ``alphazero.expert`` (or a mixture entry's), or None."""
    from sky_envs.agents import split_spec

    base, budget = split_spec(expert) if isinstance(expert, str) else ("", "")
    if base == "alphabeta" and (budget == "" or budget.isdigit() and 1 <= int(budget) <= 9) \
            or base.endswith(".pt") and budget.isdigit() and 1 <= int(budget) <= 100_000:
        return None
    return (f"must be null (PUCT search), 'alphabeta@D' with a depth D from 1 to 9, "
            f"or 'CHECKPOINT.pt@N' (that network's PUCT search with N simulations), got {expert!r}")


def validate(config: dict) -> None:
    from sky_envs.agents import split_spec
    from sky_envs.agents.network import normalize_spec
    from sky_envs.agents.search import search_setting_error

    train, pool = config["train"], config["pool"]
    if train["algorithm"] not in ("ppo", "alphazero"):
        raise ValueError(f"train.algorithm must be 'ppo' or 'alphazero', got {train['algorithm']!r}")
    config["policy"] = normalize_spec(config["policy"])
    counts = {f"train.{key}": train[key] for key in ("timesteps", "n_envs", "processes", "checkpoint_every",
                                                      "torch_threads")}
    for name, value in {**counts, "eval.workers": config["eval"]["workers"]}.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:  # YAML's true is no count
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not isinstance(train["fused_adam"], bool):
        raise ValueError(f"train.fused_adam must be true or false, got {train['fused_adam']!r}")
    if train["precision"] not in PRECISIONS:
        raise ValueError(f"train.precision must be one of {list(PRECISIONS)}, got {train['precision']!r}")
    if train["precision"] != "float32":
        from sky_envs.agents.legal_actions import LegalActionsPolicy
        from sky_envs.agents.network import policy_class

        if train["algorithm"] != "ppo" or not issubclass(policy_class(config["policy"]), LegalActionsPolicy):
            raise ValueError(f"train.precision {train['precision']!r} is for PPO (train.algorithm 'ppo') with a "
                             "dense or pairs policy head; this config trains in float32 only")
    opponents = config["alphazero"]["opponents"]
    if not isinstance(opponents, dict) or any(name not in ("random", "greedy") for name in opponents) \
            or any(isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 for v in opponents.values()) \
            or sum(opponents.values()) > 1:
        raise ValueError(f"alphazero.opponents must map baseline names (random, greedy) to shares of the games "
                         f"(each >= 0, together <= 1), got {opponents!r}")
    expert = config["alphazero"]["expert"]
    base, _ = split_spec(expert) if isinstance(expert, str) else ("", "")
    if expert is not None and (error := expert_error(expert)) is not None:
        raise ValueError(f"alphazero.expert {error}")
    if config["env"]["mixture"]:
        from .mixture import OptionMixture

        if train["algorithm"] != "alphazero":
            raise ValueError("env.mixture (games drawn from many option sets) needs train.algorithm 'alphazero'")
        if config["policy"].get("any_board") is not True:
            raise ValueError("env.mixture needs a network whose weights fit every board: policy any_board: true "
                             "(a resnet with policy_head moves)")
        OptionMixture(config["env"]["id"], config["env"]["mixture"], expert_error)
    expert_moves = config["alphazero"]["expert_moves"]
    if isinstance(expert_moves, bool) or not isinstance(expert_moves, (int, float)) or not 0 <= expert_moves <= 1:
        raise ValueError(f"alphazero.expert_moves must be a share from 0 to 1, got {expert_moves!r}")
    if not isinstance(config["alphazero"]["symmetries"], bool):
        raise ValueError(f"alphazero.symmetries must be true or false, got {config['alphazero']['symmetries']!r}")
    init_from = train["init_from"]
    if init_from is not None and (not isinstance(init_from, str) or not init_from):
        raise ValueError(f"train.init_from must be the path of a checkpoint file (or null), got {init_from!r}")
    if config["alphazero"]["policy_target"] not in ("visits", "best", "gumbel"):
        raise ValueError("alphazero.policy_target must be 'visits', 'best' or 'gumbel', got "
                         f"{config['alphazero']['policy_target']!r}")
    if config["alphazero"]["policy_target"] == "gumbel" and expert is not None:
        raise ValueError("alphazero.policy_target 'gumbel' teaches the improved policy of the learner's own Gumbel "
                         "search: with an expert, teach its visits or best moves")
    value_target = config["alphazero"]["value_target"]
    if value_target not in ("outcome", "search", "mean"):
        raise ValueError(f"alphazero.value_target must be 'outcome', 'search' or 'mean', got {value_target!r}")
    if value_target != "outcome" and base == "alphabeta":
        raise ValueError("alphazero.value_target 'search' and 'mean' need a searcher with a root value: an "
                         "alpha-beta expert gives only its best moves, so use value_target 'outcome'")
    for key in ("c_puct", "rollout_weight", "rollout_policy", "solver", "gumbel_k", "c_scale", "exact_nodes"):
        error = search_setting_error(key, config["alphazero"][key])
        if error:
            raise ValueError(f"alphazero.{error}")
    if config["alphazero"]["exact_nodes"] and base == "alphabeta":
        raise ValueError(f"alphazero.exact_nodes solves the roots of a network's search; the expert {expert!r} "
                         "searches without a network: leave exact_nodes 0 or use a checkpoint's search as expert")
    if train["processes"] > train["n_envs"]:
        raise ValueError(f"train.processes ({train['processes']}) cannot exceed train.n_envs ({train['n_envs']}): "
                         "every process plays at least one game")
    if not isinstance(pool["learn_from_latest"], bool):
        raise ValueError(f"pool.learn_from_latest must be true or false, got {pool['learn_from_latest']!r}")
    if not 0.0 <= pool["latest"] <= 1.0:
        raise ValueError(f"pool.latest must be a probability in [0, 1], got {pool['latest']!r}")
    if pool["latest"] < 1.0 and not pool["baselines"] and pool["window"] < 1:
        raise ValueError("the opponent pool is empty: give pool.baselines or a pool.window >= 1, or set pool.latest = 1")
