"""Board symmetries (sky_envs.core.symmetry, Game.symmetries): a mirrored Sky Scrapers
position observes and moves as the mirror image of the original, and expert iteration
trains on mirrored samples (alphazero.symmetries)."""

from __future__ import annotations

import numpy as np
import pytest

from sky_envs.core.registry import make_game
from sky_envs.core.symmetry import BoardSymmetries, box_symmetries
from training.config import load_config

BOARDS = [
    (dict(board="random", rows=6, cols=6, positioning="random"), 8),
    (dict(board="random", rows=4, cols=5, positioning="random", lines="orthogonal"), 4),
    (dict(board="random", rows=5, cols=5, positioning="random", lines="hex"), 4),
    (dict(board="random", rows=4, cols=7, positioning="random", lines="hex"), 2),
    (dict(players=4), 8),
]


def mirrored_text(text: str, cells: np.ndarray, rows: int, cols: int) -> str:
    """The position text with every cell's token moved where the symmetry takes the cell."""
    lines = text.split("\n")
    tokens = [token for line in lines[:rows] for token in line.split(" ")]
    moved = [""] * len(tokens)
    for i, token in enumerate(tokens):
        moved[cells[i]] = token
    grid = [" ".join(moved[r * cols:(r + 1) * cols]) for r in range(rows)]
    return "\n".join(grid + lines[rows:])


def random_positions(game, count: int, seed: int):
    """Positions of random games in the movement phase (what a position text holds)."""
    rng = np.random.default_rng(seed)
    B = game.rows * game.cols
    found = []
    while len(found) < count:
        state = game.new_initial_state(rng)
        while state.current_player >= 0:
            actions = state.legal_actions()
            if actions.max() < 8 * B and rng.random() < 0.3:
                found.append(state.clone())
            state.apply(int(rng.choice(actions)))
    return found[:count]


@pytest.mark.parametrize("options,count", BOARDS, ids=lambda x: str(x))
def test_mirrored_positions_observe_and_move_as_mirror_images(options, count):
    game = make_game("sky_scrapers_v0", **options)
    symmetries = game.symmetries
    assert len(symmetries) == count
    for position in random_positions(game, 12, seed=count):
        original = game.state_from_text(position.to_text())
        for s in range(len(symmetries)):
            mirrored = game.state_from_text(mirrored_text(original.to_text(), symmetries.cells[s], game.rows, game.cols))
            which = np.array([s])
            for seat in range(game.num_players):
                observation, = symmetries.transform(which, original.observation(seat)[None])
                np.testing.assert_array_equal(mirrored.observation(seat), observation[0])
            _, mask = symmetries.transform(which, original.observation(0)[None], original.legal_mask()[None])
            np.testing.assert_array_equal(mirrored.legal_mask(), mask[0])
            # the rules commute with the symmetry: a move and its image lead to mirrored positions
            action = int(original.legal_actions()[0])
            after, after_mirrored = original.clone(), mirrored.clone()
            after.apply(action)
            after_mirrored.apply(int(symmetries.actions[s, action]))
            assert after_mirrored.to_text() == mirrored_text(after.to_text(), symmetries.cells[s], game.rows, game.cols)


def test_placing_and_colour_actions_follow_their_cells():
    game = make_game("sky_scrapers_v0", board="random", rows=3, cols=4, positioning="random")
    B = 12
    for s in range(len(game.symmetries)):
        actions, cells = game.symmetries.actions[s], game.symmetries.cells[s]
        np.testing.assert_array_equal(actions[8 * B:9 * B], 8 * B + cells)
        np.testing.assert_array_equal(actions[9 * B:], [9 * B, 9 * B + 1])


def test_box_symmetries_keep_the_line_set():
    cells, directions = box_symmetries(3, 3, "all")
    assert len(cells) == 8 and len({tuple(row) for row in cells}) == 8
    # a quarter turn is among them: the top-left corner goes to another corner, N to E or W
    assert {int(cells[s, 0]) for s in range(8)} == {0, 2, 6, 8}
    assert {int(directions[s, 0]) for s in range(8)} == {0, 2, 4, 6}
    cells, directions = box_symmetries(2, 3, "hex")
    assert len(cells) == 2  # the identity and the half turn
    np.testing.assert_array_equal(directions[1, [0, 1, 2, 4, 5, 6]], [4, 5, 6, 0, 1, 2])


def test_bad_maps_are_refused():
    with pytest.raises(ValueError, match="permutation"):
        BoardSymmetries([[0, 1], [0, 0]], [[0, 1, 2], [2, 1, 0]])
    with pytest.raises(ValueError, match="identity"):
        BoardSymmetries([[1, 0]], [[0, 1]])
    with pytest.raises(ValueError, match="same S"):
        BoardSymmetries([[0, 1]], [[0, 1], [1, 0]])


def test_config_refuses_symmetries_where_the_game_has_none(tmp_path):
    from training.alphazero import ExpertIterationRun

    path = tmp_path / "c.yaml"
    path.write_text("env: {id: scala_v0}\ntrain: {algorithm: alphazero, timesteps: 10}\nalphazero: {symmetries: true}\n")
    with pytest.raises(ValueError, match="no board symmetries"):
        ExpertIterationRun(load_config(path), tmp_path / "run")
    path.write_text("env: {id: scala_v0}\ntrain: {algorithm: alphazero}\nalphazero: {symmetries: yes please}\n")
    with pytest.raises(ValueError, match="symmetries must be true or false"):
        load_config(path)


@pytest.mark.parametrize("symmetries", [True, False])
def test_expert_iteration_learns_the_mirror_images_of_what_it_is_taught(tmp_path, symmetries):
    """Taught one position's move, a run with symmetries prefers the mirrored move in every
    mirrored position, which it never saw; without them it has no reason to."""
    import torch

    from training.alphazero import ExpertIterationRun

    config = load_config(None, **{
        "env.id": "sky_scrapers_v0", "env.options": {"board": "square", "rows": 4, "cols": 4, "positioning": "random"},
        "train.algorithm": "alphazero", "policy": {"kind": "resnet", "channels": 16, "blocks": 1, "head_channels": 4,
                                                   "head_hidden": [16]},
        "alphazero.batch_size": 32, "alphazero.replay_ratio": 32.0, "alphazero.symmetries": symmetries})
    run = ExpertIterationRun(config, tmp_path, progress=False)
    game = run.game
    position = random_positions(game, 1, seed=3)[0]
    legal = position.legal_actions()
    taught = int(legal[len(legal) // 2])
    observation = position.observation(position.current_player)
    run.buffer.add({"observations": observation[None], "offsets": np.array([0, len(legal)]),
                    "actions": legal.astype(np.int32), "shares": (legal == taught).astype(np.float32),
                    "values": np.array([0.0], np.float32)}, "one")
    for _ in range(20):
        run.learn(new_samples=32)
    S = len(game.symmetries)
    which = np.arange(S)
    observations, masks = game.symmetries.transform(which, np.repeat(observation[None], S, 0),
                                                     np.repeat(position.legal_mask()[None].astype(bool), S, 0))
    with torch.no_grad():
        latent_pi, _ = run.policy.mlp_extractor(run.policy.extract_features(torch.as_tensor(observations)))
        logits = run.policy.action_net(latent_pi).masked_fill(~torch.as_tensor(masks), -1e9).numpy()
    chosen = logits.argmax(axis=1)
    assert chosen[0] == taught  # the position it was shown
    mirrored_right = chosen == game.symmetries.actions[which, taught]
    if symmetries:
        assert mirrored_right.all()
    else:
        assert not mirrored_right.all()


def symmetric_checkpoint(tmp_path, options, spec=None):
    """A random network for ``options``, shipped with ``--average-symmetries``."""
    import sky_envs
    from sky_envs.agents import save_checkpoint
    from sky_envs.agents.checkpoint import policy_metadata
    from sky_envs.agents.network import build_policy, game_layout
    from training import ship

    spec = spec or {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 2, "head_hidden": [8],
                    "policy_head": "moves"}
    game = sky_envs.make_game("sky_scrapers_v0", **options)
    policy = build_policy(spec, game.observation_shape, game.num_actions, **game_layout(game))
    source = save_checkpoint(tmp_path / "final.pt", policy, policy_metadata(game, options, spec, algorithm="test"))
    target = tmp_path / "policy.pt"
    assert ship.main([str(source), str(target), "--average-symmetries", "--positions", "20"]) == 0
    return source, target


def test_a_network_averaged_over_the_symmetries_plays_mirrored_positions_as_mirror_images(tmp_path):
    from sky_envs.agents import make_agent
    from training.actors import actor_for

    options = {"board": "random", "rows": 5, "cols": 5, "positioning": "random"}
    source, target = symmetric_checkpoint(tmp_path, options)
    game = make_game("sky_scrapers_v0", **options)
    symmetries = game.symmetries
    averaged = make_agent(str(target), env_id="sky_scrapers_v0", env_options=options)
    plain = make_agent(str(source), env_id="sky_scrapers_v0", env_options=options)
    assert averaged.evaluator.symmetries is not None and plain.evaluator.symmetries is None
    searching = make_agent(f"{target}@8", env_id="sky_scrapers_v0", env_options=options)
    assert searching.search.evaluate.symmetries is not None
    assert actor_for(averaged).evaluator.symmetries is not None  # batched evaluations average too
    asymmetric = 0
    for position in random_positions(game, 6, seed=5):
        original = game.state_from_text(position.to_text())
        seat = original.current_player
        p, v = averaged.evaluator(original.observation(seat)[None], original.legal_mask()[None])
        q, _ = plain.evaluator(original.observation(seat)[None], original.legal_mask()[None])
        for s in range(1, len(symmetries)):
            mirrored = game.state_from_text(mirrored_text(original.to_text(), symmetries.cells[s], game.rows, game.cols))
            pm, vm = averaged.evaluator(mirrored.observation(seat)[None], mirrored.legal_mask()[None])
            np.testing.assert_allclose(pm[0, symmetries.actions[s]], p[0], atol=1e-5)
            np.testing.assert_allclose(vm, v, atol=1e-5)
            qm, _ = plain.evaluator(mirrored.observation(seat)[None], mirrored.legal_mask()[None])
            asymmetric += not np.allclose(qm[0, symmetries.actions[s]], q[0], atol=1e-5)
    assert asymmetric  # the plain network is not symmetric by itself: the averaging made it so
    # the averaged evaluator is the mean of the log-probabilities over the views
    position = random_positions(game, 1, seed=6)[0]
    obs, mask = position.observation(position.current_player), position.legal_mask()
    which = np.arange(len(symmetries))
    views, view_masks = symmetries.transform(which, np.repeat(obs[None], len(which), 0),
                                             np.repeat(mask[None].astype(bool), len(which), 0))
    q, _ = plain.evaluator(views, view_masks)
    with np.errstate(divide="ignore"):
        expected = np.log(np.take_along_axis(q, symmetries.actions[which], axis=1)).mean(axis=0)
    logits, _ = averaged.evaluator.logits_and_values(obs[None], mask[None])
    np.testing.assert_allclose(logits[0].numpy()[mask], expected[mask], atol=1e-4)


def test_averaging_is_refused_where_the_board_has_no_symmetries(tmp_path):
    import sky_envs
    from sky_envs.agents import save_checkpoint
    from sky_envs.agents.checkpoint import CheckpointError, checkpoint_symmetries, policy_metadata, read_checkpoint
    from sky_envs.agents.network import build_policy
    from training import ship

    game = sky_envs.make_game("highrise_heist_v0")
    spec = {"kind": "mlp", "hidden": [8]}
    policy = build_policy(spec, game.observation_shape, game.num_actions)
    source = save_checkpoint(tmp_path / "hh.pt", policy, policy_metadata(game, {}, spec, algorithm="test"))
    with pytest.raises(ValueError, match="no board symmetries"):
        ship.ship(source, tmp_path / "out.pt", average_symmetries=True)
    metadata, _ = read_checkpoint(source)
    with pytest.raises(CheckpointError, match="has none"):
        checkpoint_symmetries({**metadata, "average_symmetries": True})
    assert checkpoint_symmetries({**metadata, "average_symmetries": False}) is None


def test_a_damaged_average_symmetries_field_is_refused(tmp_path):
    import torch

    from sky_envs.agents import load_checkpoint
    from sky_envs.agents.checkpoint import CheckpointError

    _, target = symmetric_checkpoint(tmp_path, {"board": "square", "rows": 4, "cols": 4},
                                     spec={"kind": "mlp", "hidden": [8]})
    data = torch.load(target, weights_only=True)
    assert data["metadata"]["average_symmetries"] is True
    data["metadata"]["average_symmetries"] = "yes"
    torch.save(data, tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match="average_symmetries"):
        load_checkpoint(tmp_path / "bad.pt")
