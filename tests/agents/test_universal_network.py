"""One Sky Scrapers network for every board (``any_board: true``): the same weights on any box,
line set and seat count, checkpoints that record and enforce the option ranges they cover,
``pretrained`` resolved per configuration (expert iteration over a mixture of option sets:
tests/training/test_mixture.py)."""

import json

import numpy as np
import pytest
import torch

import sky_envs
from sky_envs.agents import NetworkEvaluator, make_agent
from sky_envs.agents.checkpoint import (CheckpointError, load_checkpoint, open_checkpoint, policy_metadata,
                                        read_checkpoint, save_checkpoint)
from sky_envs.agents.network import build_policy, forward, game_layout, normalize_spec, parameter_count
from sky_envs.agents.pretrained import pretrained_path
from tests import REPO_ROOT
from tests.training.training_support import one_torch_thread  # noqa: F401 (fixture)
from training.board_free import fit_value_head, specialist_positions, specialist_weights
from training.tournament import match

ANY = {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 4, "head_hidden": [8], "policy_head": "moves",
       "any_board": True}
RANGES = {"rows": {"min": 4, "max": 8}, "cols": {"min": 4, "max": 8}, "lines": ["all", "hex"],
          "players": {"min": 2, "max": 4}, "positioning": ["standard", "random", "strategic"],
          "board": ["standard", "square", "random", "mask"]}
SPECIALIST = "checkpoints/sky_scrapers_v0/policy.pt"


def any_board_policy(game, seed=0, spec=ANY):
    torch.manual_seed(seed)
    return build_policy(spec, game.observation_shape, game.num_actions, **game_layout(game))


def boxed(action, small_cols, small_cells, big_cols, big_cells):
    """The action of a board's box in a larger box holding the board at its top left."""
    if action < 9 * small_cells:
        kind, cell = divmod(action, small_cells) if action >= 8 * small_cells else (None, action // 8)
        row, col = divmod(cell, small_cols)
        big = row * big_cols + col
        return 8 * big_cells + big if kind is not None else big * 8 + action % 8
    return 9 * big_cells + action - 9 * small_cells


@pytest.mark.parametrize("lines, players", [("all", 2), ("hex", 4)])
def test_a_position_embedded_in_a_larger_box_gets_the_same_outputs(lines, players):
    small = sky_envs.make_game("sky_scrapers_v0", board="square", rows=4, cols=4, lines=lines, players=players,
                               positioning="random")
    big = sky_envs.make_game("sky_scrapers_v0", board="/".join(["....##"] * 4 + ["######"] * 2), lines=lines,
                             players=players, positioning="random")
    one, other = any_board_policy(small), any_board_policy(big, seed=1)
    other.load_state_dict(one.state_dict())   # no weight depends on the box

    def move(action):
        return boxed(int(action), 4, 16, 6, 36)

    here, there = small.new_initial_state(np.random.default_rng(3)), big.new_initial_state(np.random.default_rng(3))
    rng, compared = np.random.default_rng(0), 0
    while here.current_player >= 0:
        legal = here.legal_actions()
        assert np.array_equal(np.flatnonzero(there.legal_mask()), sorted(move(a) for a in legal))
        probabilities = []
        for policy, state in ((one, here), (other, there)):
            obs, mask = state.observation(state.current_player)[None], np.array(state.legal_mask())[None]
            p, value = NetworkEvaluator(policy)(obs, mask)
            assert np.isfinite(p).all() and p[0][~mask[0]].sum() == 0 and np.isclose(p.sum(), 1)
            probabilities.append((p[0], value[0]))
        (p_small, v_small), (p_big, v_big) = probabilities
        assert np.allclose(p_small[legal], p_big[[move(a) for a in legal]], atol=1e-5)
        assert abs(v_small - v_big) < 1e-5
        compared += 1
        action = int(rng.choice(legal))
        here.apply(action)
        there.apply(move(action))
    assert compared > 5


def test_the_weights_do_not_depend_on_the_board_and_the_count_is_exact():
    configurations = [{}, {"board": "square", "rows": 9, "cols": 5, "lines": "orthogonal", "players": 4, "positioning": "random"},
                      {"board": "random", "rows": 7, "cols": 7, "lines": "hex", "positioning": "strategic"}]
    shapes = None
    for options in configurations:
        game = sky_envs.make_game("sky_scrapers_v0", **options)
        policy = any_board_policy(game)
        found = {name: tuple(t.shape) for name, t in policy.state_dict().items()}
        assert shapes in (None, found)
        shapes = found
        assert sum(p.numel() for p in policy.parameters()) == parameter_count(
            ANY, game.observation_shape, game.num_actions, game.stack_moves)
        state = game.new_initial_state(np.random.default_rng(0))
        logits, values = forward(policy, torch.as_tensor(state.observation(state.current_player))[None])
        assert logits.shape == (1, game.num_actions) and values.shape == (1,)


def test_any_board_needs_the_moves_head():
    with pytest.raises(ValueError, match="any_board needs policy_head 'moves'"):
        normalize_spec({**ANY, "policy_head": "dense"})
    with pytest.raises(ValueError, match="true or false"):
        normalize_spec({**ANY, "any_board": 1})


def universal_checkpoint(path, ranges=RANGES, options=None):
    options = {"board": "random", "rows": 6, "cols": 6, "positioning": "random"} if options is None else options
    game = sky_envs.make_game("sky_scrapers_v0", **options)
    metadata = policy_metadata(game, options, ANY, option_ranges=ranges, algorithm="test")
    return save_checkpoint(path, any_board_policy(game), metadata)


def test_a_checkpoint_plays_every_configuration_its_ranges_cover(tmp_path):
    path = universal_checkpoint(tmp_path / "universal.pt")
    _, own = load_checkpoint(path)
    for options in ({"board": "square", "rows": 8, "cols": 8, "players": 4, "lines": "hex"},
                    {"board": "random", "rows": 4, "cols": 7, "positioning": "strategic"},
                    {"board": "/".join(["##......"] * 6), "lines": "all", "positioning": "random"}):
        policy, metadata = load_checkpoint(path, env_id="sky_scrapers_v0", env_options=options)
        game = sky_envs.make_game("sky_scrapers_v0", **options)
        assert policy.observation_space.shape == game.observation_shape and metadata == own
        agent = make_agent(f"{path}@4", env_id="sky_scrapers_v0", env_options=options, seed=0)
        state = game.new_initial_state(np.random.default_rng(0))
        assert state.legal_mask()[agent.act(None, state)]


@pytest.mark.parametrize("options, message", [
    ({"board": "square", "rows": 10, "cols": 10}, r"rows 10 is outside the range the checkpoint covers, 4\.\.8"),
    ({"board": "square", "rows": 6, "cols": 6, "lines": "orthogonal"},
     r"lines 'orthogonal' is not one the checkpoint covers, \['all', 'hex'\]"),
])
def test_options_outside_the_ranges_are_refused_naming_the_range(tmp_path, options, message):
    path = universal_checkpoint(tmp_path / "universal.pt")
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path, env_id="sky_scrapers_v0", env_options=options)
    with pytest.raises(CheckpointError, match="it covers rows 4..8"):
        make_agent(str(path), env_id="sky_scrapers_v0", env_options=options)


def test_option_ranges_are_checked_when_saved_and_read(tmp_path):
    with pytest.raises(ValueError, match="must lie in its option_ranges"):
        universal_checkpoint(tmp_path / "a.pt", options={"board": "square", "rows": 10, "cols": 10})
    with pytest.raises(ValueError, match="'rows' must be"):
        universal_checkpoint(tmp_path / "b.pt", ranges={"rows": {"min": 8, "max": 4}})
    game = sky_envs.make_game("sky_scrapers_v0")
    fixed = {**ANY, "any_board": False}
    with pytest.raises(ValueError, match="any_board: true"):
        policy_metadata(game, {}, fixed, option_ranges={"rows": {"min": 6, "max": 6}})
    # a file whose ranges were edited fails its digest; one saved with ranges but a fixed network is damaged
    path = universal_checkpoint(tmp_path / "c.pt")
    blob = torch.load(path, weights_only=True)
    blob["metadata"]["option_ranges"]["rows"]["max"] = 64
    torch.save(blob, tmp_path / "d.pt")
    with pytest.raises(CheckpointError, match="tampered"):
        read_checkpoint(tmp_path / "d.pt")


def test_the_specialist_still_loads_and_checks_as_before():
    checkpoint = open_checkpoint(REPO_ROOT / SPECIALIST, "sky_scrapers_v0", {})
    assert "option_ranges" not in checkpoint.metadata and not normalize_spec(checkpoint.metadata["network"])["any_board"]
    with pytest.raises(CheckpointError, match="expects observations"):
        open_checkpoint(REPO_ROOT / SPECIALIST, "sky_scrapers_v0", {"board": "square", "rows": 8, "cols": 8})


def test_the_specialists_weights_start_a_board_free_network_that_plays_its_moves():
    specialist = open_checkpoint(REPO_ROOT / SPECIALIST, "sky_scrapers_v0", {})
    game = specialist.game
    spec = {**specialist.metadata["network"], "any_board": True}
    policy = any_board_policy(game, spec=spec)
    policy.load_state_dict(specialist_weights(specialist.policy, policy))
    state = game.new_initial_state(np.random.default_rng(0))
    for _ in range(6):
        obs = torch.as_tensor(state.observation(state.current_player))[None]
        legal = state.legal_actions()
        mine, theirs = forward(policy, obs)[0][0, legal], forward(specialist.policy, obs)[0][0, legal]
        assert torch.allclose(mine, theirs, atol=1e-4)   # every cell is a board cell: the same moves
        state.apply(int(legal[int(theirs.argmax())]))


def test_the_value_head_is_fitted_to_the_specialists_values_and_nothing_else_moves():
    specialist = open_checkpoint(REPO_ROOT / SPECIALIST, "sky_scrapers_v0", {})
    spec = {**specialist.metadata["network"], "any_board": True}
    policy = any_board_policy(specialist.game, spec=spec)
    policy.load_state_dict(specialist_weights(specialist.policy, policy))
    observations, values = specialist_positions(specialist.policy, specialist.game, games=6, seed=5)
    again = specialist_positions(specialist.policy, specialist.game, games=6, seed=5)
    assert np.array_equal(observations, again[0]) and np.array_equal(values, again[1])   # seeded games
    assert len(observations) > 6 * 20 and values.std() > 0.05
    probe = torch.from_numpy(observations[:32])
    logits_before = forward(policy, probe)[0]
    fit = fit_value_head(policy, observations, values, steps=200, seed=0)
    assert fit["positions"] == len(observations)
    assert fit["held_out_mse"] < 0.5 * fit["held_out_mse_before"]   # the untrained head was far off
    assert torch.equal(forward(policy, probe)[0], logits_before)    # the trunk and the moves head held fixed


BOARDS = {"6x6 default": {}, "8x8 square": {"board": "square", "rows": 8, "cols": 8, "positioning": "random"},
          "6x6 hex": {"board": "random", "rows": 6, "cols": 6, "positioning": "random", "lines": "hex"},
          "8x8 four seats": {"players": 4}}


@pytest.mark.parametrize("options", BOARDS.values(), ids=BOARDS.keys())
def test_one_checkpoint_plays_whole_games_on_the_boards_of_the_target(tmp_path, options):
    path = universal_checkpoint(tmp_path / "universal.pt")
    game = sky_envs.make_game("sky_scrapers_v0", **options)
    raw = make_agent(str(path), env_id="sky_scrapers_v0", env_options=options, seed=0)
    searcher = make_agent(f"{path}@4", env_id="sky_scrapers_v0", env_options=options, seed=0)
    state = game.new_initial_state(np.random.default_rng(1))
    moves = 0
    while state.current_player >= 0:
        agent = searcher if moves < 2 else raw   # a few searched moves, then the raw network to the end
        observation = {"observation": state.observation(state.current_player), "action_mask": state.legal_mask()}
        action = int(agent.act(observation, state))
        assert state.legal_mask()[action], (moves, action)
        state.apply(action)
        moves += 1
    assert moves > 10 and len(state.returns()) == game.num_players


def test_pretrained_is_each_envs_specialist_on_its_options_and_the_network_for_every_board_elsewhere():
    """Every env's ``pretrained`` on its network's own options is ``checkpoints/<env_id>/policy.pt``
    as before; Sky Scrapers' folder lists ``universal.pt`` after it (``pretrained.json``), which
    plays every board its option ranges cover, and options outside them are refused by name."""
    shipped = sorted((REPO_ROOT / "checkpoints").glob("*/policy.pt"))
    assert len(shipped) >= 6
    for path in shipped:
        env_id = path.parent.name
        options = read_checkpoint(path)[0]["env_options"]
        assert pretrained_path(env_id) == pretrained_path(env_id, options) == path
        assert (path.parent / "pretrained.json").exists() == (env_id == "sky_scrapers_v0")
    universal = REPO_ROOT / "checkpoints" / "sky_scrapers_v0" / "universal.pt"
    for options in BOARDS.values():
        assert pretrained_path("sky_scrapers_v0", options) == (universal if options else REPO_ROOT / SPECIALIST)
    for options in ({"board": "random", "rows": 5, "cols": 7, "positioning": "random"},
                    {"board": "square", "rows": 4, "cols": 4, "lines": "orthogonal", "positioning": "strategic"},
                    {"board": "square", "rows": 10, "cols": 10, "lines": "hex", "players": 4, "positioning": "random"}):
        assert pretrained_path("sky_scrapers_v0", options) == universal
    twelve = {"board": "square", "rows": 12, "cols": 12}
    with pytest.raises(ValueError, match="no network shipped for sky_scrapers_v0 plays.*12 is outside the range"):
        make_agent("pretrained", env_id="sky_scrapers_v0", env_options=twelve)


@pytest.mark.parametrize("options", list(BOARDS.values())[1:], ids=list(BOARDS)[1:])
def test_the_shipped_network_for_every_board_plays_legally_and_beats_random_with_a_small_search(options):
    """Whole games at 16 simulations on each target board (an illegal move raises in ``match``)."""
    metadata = read_checkpoint(REPO_ROOT / "checkpoints" / "sky_scrapers_v0" / "universal.pt")[0]
    assert metadata["training"]["command"].startswith(
        "python -m training.board_free --specialist checkpoints/sky_scrapers_v0/policy.pt --config configs/recipes/")
    fit = metadata["training"]["value_fit"]
    assert fit["held_out_mse"] < 0.3 * fit["held_out_target_variance"]   # it reads the specialist's values
    assert metadata["search"]["exact_nodes"] > 0   # recorded; here with a budget a test affords
    search = make_agent("pretrained@16", env_id="sky_scrapers_v0", env_options=options, seed=0, exact_nodes=50_000)
    result = match("sky_scrapers_v0", options, ("search", search), ("random", make_agent("random", seed=1)), 4, seed=3)
    if sky_envs.make_game("sky_scrapers_v0", **options).num_players == 2:   # four seats: whole legal games only
        assert result.score / result.games >= 0.75                          # (three random players are noisy)


def test_pretrained_resolves_per_configuration(tmp_path):
    folder = tmp_path / "sky_scrapers_v0"
    folder.mkdir()
    universal_checkpoint(folder / "universal.pt")
    (folder / "policy.pt").write_bytes((REPO_ROOT / SPECIALIST).read_bytes())
    six = {"rows": {"min": 6, "max": 6}, "cols": {"min": 6, "max": 6}, "positioning": ["standard", "random"]}
    (folder / "pretrained.json").write_text(json.dumps({"networks": [{"file": "policy.pt", "options": six},
                                                                     {"file": "universal.pt"}]}))
    assert pretrained_path("sky_scrapers_v0", None, tmp_path) == folder / "policy.pt"   # the defaults
    assert pretrained_path("sky_scrapers_v0", {"board": "random", "rows": 6, "cols": 6, "positioning": "random"},
                           tmp_path) == folder / "policy.pt"
    for options in ({"board": "random", "rows": 6, "cols": 6, "positioning": "strategic"},
                    {"board": "square", "rows": 8, "cols": 8, "lines": "hex"}, {"players": 4}):
        assert pretrained_path("sky_scrapers_v0", options, tmp_path) == folder / "universal.pt"
    with pytest.raises(ValueError, match="no network shipped for sky_scrapers_v0 plays.*rows 12 is outside"):
        pretrained_path("sky_scrapers_v0", {"board": "square", "rows": 12, "cols": 12}, tmp_path)
    with pytest.raises(ValueError, match="refuses options"):
        pretrained_path("sky_scrapers_v0", {"board": "x"}, tmp_path)


def test_pretrained_plays_the_options_asked_for():
    options = {"board": "random", "rows": 6, "cols": 6, "positioning": "random"}
    agent = make_agent("pretrained", env_id="sky_scrapers_v0", env_options=options, seed=0)
    game = sky_envs.make_game("sky_scrapers_v0", **options)
    state = game.new_initial_state(np.random.default_rng(0))
    assert state.legal_mask()[agent.act({"observation": state.observation(state.current_player),
                                         "action_mask": state.legal_mask()}, state)]


def test_shipping_can_widen_the_ranges_a_network_covers(tmp_path):
    from training.ship import main as ship_main

    source = universal_checkpoint(tmp_path / "universal.pt")
    wider = {**RANGES, "rows": {"min": 4, "max": 12}, "cols": {"min": 4, "max": 12}}
    assert ship_main([str(source), str(tmp_path / "shipped.pt"), "--positions", "5", "--weights-dtype", "float16",
                      "--option-ranges", json.dumps(wider)]) == 0
    eleven = {"board": "random", "rows": 11, "cols": 11, "positioning": "random"}
    with pytest.raises(CheckpointError, match="outside the range"):
        load_checkpoint(source, env_id="sky_scrapers_v0", env_options=eleven)
    _, metadata = load_checkpoint(tmp_path / "shipped.pt", env_id="sky_scrapers_v0", env_options=eleven)
    assert metadata["option_ranges"] == wider
