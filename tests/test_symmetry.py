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
