"""The pairs policy head (``policy_head: pairs``): moves scored by their two board cells."""

import numpy as np
import pytest
import torch

import sky_envs
from sky_envs.agents import make_agent
from sky_envs.agents.features import CellPairsHead
from sky_envs.agents.checkpoint import CheckpointError, load_checkpoint, policy_metadata, save_checkpoint
from sky_envs.agents.network import build_policy, normalize_spec, parameter_count
from tests.training.training_support import one_torch_thread, quiet  # noqa: F401 (fixture)
from training.alphazero import ExpertIterationRun
from training.config import load_config
from training.selfplay import SelfPlayRun

PAIRS = {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 4, "head_hidden": [8], "policy_head": "pairs"}


def scala_policy(spec=PAIRS, seed=0):
    game = sky_envs.make_game("scala_v0")
    torch.manual_seed(seed)
    return game, build_policy(spec, game.observation_shape, game.num_actions, action_cells=game.action_cells)


def test_scala_cells_are_its_board_cells_in_action_order():
    game = sky_envs.make_game("scala_v0")
    cells = np.array(game.action_cells)
    state = game.new_initial_state(np.random.default_rng(0))
    grid = state.observation(0).reshape(-1, game.observation_shape[-1])
    assert len(cells) ** 2 == game.num_actions and len(set(cells.tolist())) == len(cells)
    assert grid[cells, 0].all() and grid[:, 0].sum() == len(cells)  # channel 0: the board's cells
    # action from * 88 + to: the start position's stones are where its legal moves start
    starts = {int(a) // len(cells) for a in state.legal_actions()}
    own = {i for i, cell in enumerate(cells) if grid[cell, 1]}
    assert starts <= own


def test_a_move_scores_the_product_of_its_two_cells_planes():
    game, policy = scala_policy()
    state = game.new_initial_state(np.random.default_rng(0))
    obs = torch.from_numpy(state.observation(0))[None]
    with torch.no_grad():
        features = policy.extract_features(obs)
        logits = policy.action_net(policy.mlp_extractor(features)[0])[0]
        planes = features.view(4, -1)[:, list(game.action_cells)]
        head = policy.action_net
        for action in (0, 1234, game.num_actions - 1):
            start, end = divmod(action, len(game.action_cells))
            expected = planes[:2, start] @ planes[2:, end] / np.sqrt(2) + head.bias[action]
            assert torch.allclose(logits[action], expected, atol=1e-6)
    assert sum(p.numel() for p in policy.parameters()) == parameter_count(PAIRS, game.observation_shape,
                                                                           game.num_actions)


def test_a_pairs_checkpoint_round_trips_and_plays(tmp_path):
    game, policy = scala_policy()
    metadata = policy_metadata(game, {}, PAIRS, algorithm="test", steps=0)
    assert metadata["action_cells"] == list(game.action_cells)
    path = save_checkpoint(tmp_path / "p.pt", policy, metadata)
    loaded, read = load_checkpoint(path, env_id="scala_v0")
    assert read["network"] == normalize_spec(PAIRS)
    for name, tensor in policy.state_dict().items():
        assert torch.equal(tensor, loaded.state_dict()[name])
    env = sky_envs.make("scala_v0")
    env.reset(seed=3)
    for spec in (str(path), f"{path}@4"):
        agent = make_agent(spec, env_id="scala_v0")
        observation = env.last()[0]
        assert observation["action_mask"][agent.act(observation, env.unwrapped.game_state)]


def test_pairs_need_a_game_with_cells_and_an_even_head():
    sky = sky_envs.make_game("sky_scrapers_v0")
    with pytest.raises(ValueError, match="Game.action_cells"):
        build_policy(PAIRS, sky.observation_shape, sky.num_actions, action_cells=sky.action_cells)
    with pytest.raises(ValueError, match="head_channels must be even"):
        normalize_spec({**PAIRS, "head_channels": 3})
    with pytest.raises(ValueError, match="policy_head must be one of"):
        normalize_spec({**PAIRS, "policy_head": "sparse"})
    game = sky_envs.make_game("scala_v0")
    with pytest.raises(ValueError, match="n \\* n = 7744"):
        build_policy(PAIRS, game.observation_shape, game.num_actions, action_cells=game.action_cells[:-1])


def test_a_checkpoint_with_damaged_cells_is_refused(tmp_path):
    from tests.agents.test_checkpoints import resave

    game, policy = scala_policy()
    path = save_checkpoint(tmp_path / "p.pt", policy, policy_metadata(game, {}, PAIRS, algorithm="test", steps=0))
    blob = torch.load(path, weights_only=True)
    blob["metadata"]["action_cells"] = blob["metadata"]["action_cells"][:10]
    with pytest.raises(CheckpointError, match="action_cells must be n cells"):
        load_checkpoint(resave(blob, tmp_path / "bad.pt"))
    del blob["metadata"]["action_cells"]
    with pytest.raises(CheckpointError, match="Game.action_cells"):
        load_checkpoint(resave(blob, tmp_path / "none.pt"))


SCALA = {"env.id": "scala_v0", "env.options": {"max_turns": 40}, "policy": PAIRS, "eval.games": 2,
         "eval.opponents": ["random"], "train.quick_eval_games": 0, "eval.workers": 1}


def test_both_learners_train_a_pairs_network(tmp_path):
    ppo = SelfPlayRun(load_config(None, **SCALA, **{
        "train.timesteps": 64, "train.n_envs": 2, "train.checkpoint_every": 64, "ppo.n_steps": 32,
        "ppo.batch_size": 32, "ppo.n_epochs": 1}), tmp_path / "ppo", progress=False, log=quiet)
    final = ppo.train()
    loaded, metadata = load_checkpoint(final, env_id="scala_v0", env_options={"max_turns": 40})
    assert metadata["action_cells"] == list(sky_envs.make_game("scala_v0").action_cells)
    assert isinstance(loaded.action_net, CellPairsHead) and loaded.action_net.bias.abs().sum() > 0  # it learnt
    expert = ExpertIterationRun(load_config(None, **SCALA, **{
        "train.algorithm": "alphazero", "train.timesteps": 60, "train.checkpoint_every": 60,
        "alphazero.simulations": 4, "alphazero.parallel_games": 2, "alphazero.batch_size": 16,
        "alphazero.expert": "alphabeta@1"}), tmp_path / "az", progress=False, log=quiet)
    start = {name: tensor.clone() for name, tensor in expert.policy.state_dict().items()}
    final = expert.train()
    loaded, _ = load_checkpoint(final, env_id="scala_v0", env_options={"max_turns": 40})
    assert any(not torch.equal(t, loaded.state_dict()[n]) for n, t in start.items())
    assert torch.equal(loaded.state_dict()["action_net.bias"], expert.policy.state_dict()["action_net.bias"])
