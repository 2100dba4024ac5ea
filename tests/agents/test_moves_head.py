"""The moves policy head (``policy_head: moves``): stack moves scored by their start and landing cells."""

import numpy as np
import pytest
import torch

import sky_envs
from sky_envs.agents import make_agent
from sky_envs.agents.checkpoint import CheckpointError, load_checkpoint, policy_metadata, save_checkpoint
from sky_envs.agents.features import StackMovesHead
from sky_envs.agents.network import build_policy, game_layout, normalize_spec, parameter_count
from sky_envs.core.state import StackMoves
from sky_envs.games.sky_scrapers.state import MOVE
from tests.training.training_support import one_torch_thread, quiet  # noqa: F401 (fixture)
from training.alphazero import ExpertIterationRun
from training.config import load_config
from training.selfplay import SelfPlayRun

MOVES = {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 4, "head_hidden": [8], "policy_head": "moves"}
OPTIONS = {"board": "random", "rows": 5, "cols": 6, "positioning": "random"}


def sky_policy(spec=MOVES, seed=0, **options):
    game = sky_envs.make_game("sky_scrapers_v0", **(options or OPTIONS))
    torch.manual_seed(seed)
    return game, build_policy(spec, game.observation_shape, game.num_actions, **game_layout(game))


def played_states(game, games=6, seed=0):
    """Positions of random games, the moves of each as (state, legal actions)."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = game.new_initial_state(np.random.default_rng(seed + g))
        while state.current_player >= 0:
            legal = state.legal_actions()
            yield state, legal
            state.apply(int(rng.choice(legal)))


@pytest.mark.parametrize("options", [OPTIONS, {"board": "square", "rows": 4, "cols": 7, "lines": "hex"},
                                     {"board": "random", "rows": 8, "cols": 8, "players": 4, "positioning": "strategic"}])
def test_the_layout_says_where_every_legal_move_lands(options):
    game = sky_envs.make_game("sky_scrapers_v0", **options)
    layout, cells = game.stack_moves, game.rows * game.cols
    checked = 0
    for state, legal in played_states(game, games=3):
        seat = state.current_player
        heights = state.observation(seat)[..., list(layout.height_planes)].sum(-1).reshape(-1)
        for action in legal:
            if action >= cells * layout.directions:
                assert action < cells * (layout.directions + layout.cell_actions) or action >= 9 * cells
                continue
            start, direction = divmod(int(action), layout.directions)
            height = int(heights[start])
            landing = layout.targets[min(height, len(layout.targets) - 1), start, direction]
            after = state.clone()
            after.apply(int(action))
            assert landing < cells and after.heights[landing] == height + state.heights[landing]
            assert after.heights[start] == 0
            checked += 1
    assert checked > 50


def test_a_move_scores_its_start_landing_and_direction():
    game, policy = sky_policy()
    layout, cells = game.stack_moves, game.rows * game.cols
    state, legal = next((s, l) for s, l in played_states(game) if s.phase == MOVE and len(l) > 3)
    obs = torch.from_numpy(state.observation(state.current_player))[None]
    head = policy.action_net
    assert isinstance(head, StackMovesHead)
    with torch.no_grad():
        features = policy.extract_features(obs)
        logits = head(policy.mlp_extractor(features)[0])[0]
        trunk = features[0, cells:].view(8, cells).T
        heights = features[0, :cells].long()
        for action in legal[:4]:
            start, d = divmod(int(action), layout.directions)
            landing = layout.targets[min(int(heights[start]), len(layout.targets) - 1), start, d]
            hidden = torch.relu(head.start(trunk[start]) + head.landing(trunk[landing]) + head.direction[d])
            assert torch.allclose(logits[action], head.score(hidden)[0], atol=1e-5)
        place = cells * layout.directions + 3
        assert torch.allclose(logits[place], head.cell_actions(trunk[3])[0], atol=1e-5)
        assert torch.allclose(logits[-2:], head.other_actions(trunk.mean(0)), atol=1e-5)
    assert logits.shape == (game.num_actions,)
    assert sum(p.numel() for p in policy.parameters()) == parameter_count(MOVES, game.observation_shape,
                                                                           game.num_actions, game.stack_moves)
    assert parameter_count(MOVES, game.observation_shape, game.num_actions) >= parameter_count(
        MOVES, game.observation_shape, game.num_actions, game.stack_moves)


def test_a_moves_checkpoint_round_trips_and_plays(tmp_path):
    game, policy = sky_policy()
    metadata = policy_metadata(game, OPTIONS, MOVES, algorithm="test", steps=0)
    assert StackMoves.from_dict(metadata["stack_moves"]) == game.stack_moves
    path = save_checkpoint(tmp_path / "m.pt", policy, metadata)
    loaded, read = load_checkpoint(path, env_id="sky_scrapers_v0")
    assert read["network"] == normalize_spec(MOVES)
    for name, tensor in policy.state_dict().items():
        assert torch.equal(tensor, loaded.state_dict()[name])
    env = sky_envs.make("sky_scrapers_v0", **OPTIONS)
    env.reset(seed=3)
    for spec in (str(path), f"{path}@4"):
        agent = make_agent(spec, env_id="sky_scrapers_v0", env_options=OPTIONS)
        observation = env.last()[0]
        assert observation["action_mask"][agent.act(observation, env.unwrapped.game_state)]
    # the same box with other lines has other landing cells: refused, not misread
    with pytest.raises(CheckpointError, match="stack_moves differ"):
        load_checkpoint(path, env_id="sky_scrapers_v0", env_options={**OPTIONS, "lines": "orthogonal"})


def test_moves_need_a_game_with_stack_moves():
    scala = sky_envs.make_game("scala_v0")
    with pytest.raises(ValueError, match="Game.stack_moves"):
        build_policy(MOVES, scala.observation_shape, scala.num_actions, **game_layout(scala))
    game = sky_envs.make_game("sky_scrapers_v0", **OPTIONS)
    bad = {**game.stack_moves.as_dict(), "height_planes": [9]}
    with pytest.raises(ValueError, match="height_planes must be planes 0..5"):
        build_policy(MOVES, game.observation_shape, game.num_actions, stack_moves=bad)
    with pytest.raises(ValueError, match="stack_moves must be a mapping"):
        build_policy(MOVES, game.observation_shape, game.num_actions, stack_moves={"directions": 8})


def test_a_checkpoint_with_a_damaged_layout_is_refused(tmp_path):
    from tests.agents.test_checkpoints import resave

    game, policy = sky_policy()
    path = save_checkpoint(tmp_path / "m.pt", policy, policy_metadata(game, OPTIONS, MOVES, algorithm="test", steps=0))
    blob = torch.load(path, weights_only=True)
    blob["metadata"]["stack_moves"]["targets"] = [[[99] * 8] * 30]
    with pytest.raises(CheckpointError, match="targets must be cells"):
        load_checkpoint(resave(blob, tmp_path / "bad.pt"))
    del blob["metadata"]["stack_moves"]
    with pytest.raises(CheckpointError, match="Game.stack_moves"):
        load_checkpoint(resave(blob, tmp_path / "none.pt"))


SKY = {"env.id": "sky_scrapers_v0", "env.options": {"board": "random", "rows": 4, "cols": 4, "positioning": "random"},
       "policy": MOVES, "eval.games": 2, "eval.opponents": ["random"], "train.quick_eval_games": 0, "eval.workers": 1}


def test_both_learners_train_a_moves_network(tmp_path):
    ppo = SelfPlayRun(load_config(None, **SKY, **{
        "train.timesteps": 64, "train.n_envs": 2, "train.checkpoint_every": 64, "ppo.n_steps": 32,
        "ppo.batch_size": 32, "ppo.n_epochs": 1}), tmp_path / "ppo", progress=False, log=quiet)
    final = ppo.train()
    loaded, metadata = load_checkpoint(final, env_id="sky_scrapers_v0", env_options=SKY["env.options"])
    assert metadata["stack_moves"] == sky_envs.make_game("sky_scrapers_v0", **SKY["env.options"]).stack_moves.as_dict()
    assert isinstance(loaded.action_net, StackMovesHead) and loaded.action_net.direction.abs().sum() > 0  # it learnt
    expert = ExpertIterationRun(load_config(None, **SKY, **{
        "train.algorithm": "alphazero", "train.timesteps": 60, "train.checkpoint_every": 60,
        "alphazero.simulations": 4, "alphazero.parallel_games": 2, "alphazero.batch_size": 16}),
        tmp_path / "az", progress=False, log=quiet)
    start = {name: tensor.clone() for name, tensor in expert.policy.state_dict().items()}
    final = expert.train()
    loaded, _ = load_checkpoint(final, env_id="sky_scrapers_v0", env_options=SKY["env.options"])
    assert any(not torch.equal(t, loaded.state_dict()[n]) for n, t in start.items())
    assert torch.equal(loaded.state_dict()["action_net.direction"], expert.policy.state_dict()["action_net.direction"])


@pytest.mark.parametrize("spec", [MOVES, {"kind": "mlp", "hidden": [16, 16]},
                                  {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 2, "head_hidden": [8]}],
                         ids=["moves head", "mlp", "resnet"])
def test_logits_without_the_value_side_are_the_same_logits(spec):
    """``forward(..., values=False)`` and ``NetworkEvaluator.masked_logits`` (what deterministic
    agents and opponents read) skip the value layers and give the logits of the whole pass,
    bit for bit, with the board's symmetries too."""
    from sky_envs.agents.network import forward
    from sky_envs.agents.policy import NetworkEvaluator
    from tests.agents.test_search import random_positions

    game, policy = sky_policy(spec)
    states = random_positions(game, 6, 12, seed=2)
    observations = np.stack([s.observation(s.current_player) for s in states])
    masks = np.stack([s.legal_mask().astype(bool) for s in states])
    with torch.no_grad():
        logits, values = forward(policy, torch.as_tensor(observations))
        alone, none = forward(policy, torch.as_tensor(observations), values=False)
    assert none is None and values.shape == (6,) and torch.equal(logits, alone)
    assert masks.any(axis=1).all() and game.symmetries is not None
    for symmetries in (None, game.symmetries):
        evaluator = NetworkEvaluator(policy, symmetries)
        alone = evaluator.masked_logits(observations, masks)
        assert torch.equal(alone, evaluator.logits_and_values(observations, masks)[0])
        assert torch.isfinite(alone[torch.as_tensor(masks)]).all()
