"""A tiny self-play configuration that trains in a second or two, shared by the training tests."""

import pytest
import torch

from training.config import load_config

SMALL_NETWORK = {"kind": "mlp", "hidden": [32], "activation": "relu"}
TINY = {
    "env.id": "sky_scrapers_v0",
    "env.options": {"board": "square", "rows": 4, "cols": 4, "positioning": "random"},
    "train.timesteps": 256, "train.n_envs": 2, "train.checkpoint_every": 128, "train.quick_eval_games": 2,
    "ppo.n_steps": 32, "ppo.batch_size": 32, "ppo.n_epochs": 1,
    "policy": SMALL_NETWORK, "pool.window": 2,
    "eval.games": 2, "eval.opponents": ["random", "greedy", "mcts"], "eval.mcts_simulations": 4, "eval.workers": 1,
}


def tiny_config(**changes):
    return load_config(None, **{**TINY, **changes})


def random_policy(game, seed: int = 0):
    """An untrained network for ``game`` (seeded)."""
    from sky_envs.agents.network import build_policy

    torch.manual_seed(seed)
    return build_policy(SMALL_NETWORK, game.observation_shape, game.num_actions)


def quiet(*args) -> None:
    """A run's log that prints nothing."""


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Torch on one thread, as training runs it: on a busy 2-core machine two threads make
    even building a small network take seconds (OpenMP workers waiting on each other)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
