"""`python -m training.ship`: a trained checkpoint copied where it ships, float16 if asked."""

import pytest
import torch

import sky_envs
from sky_envs.agents import load_checkpoint, make_agent, save_checkpoint
from sky_envs.agents.checkpoint import policy_metadata, read_checkpoint
from sky_envs.agents.network import build_policy
from training import ship

OPTIONS = {"board": "square", "rows": 4, "cols": 4}
SPEC = {"kind": "mlp", "hidden": [32]}


@pytest.fixture
def trained(tmp_path):
    game = sky_envs.make_game("sky_scrapers_v0", **OPTIONS)
    torch.manual_seed(0)  # the same weights every run: float16 rounding flips a near tie of some random networks
    policy = build_policy(SPEC, game.observation_shape, game.num_actions)
    metadata = policy_metadata(game, OPTIONS, SPEC, algorithm="alphazero", steps=123, command="python -m x")
    return save_checkpoint(tmp_path / "final.pt", policy, metadata)


def test_a_float16_copy_keeps_the_metadata_and_plays_like_the_original(trained, tmp_path, capsys):
    target = tmp_path / "shipped" / "policy.pt"
    assert ship.main([str(trained), str(target), "--weights-dtype", "float16", "--positions", "300"]) == 0
    printed = capsys.readouterr().out
    assert "wrote" in printed and "same action 100.0%" in printed
    original, copy = read_checkpoint(trained)[0], read_checkpoint(target)[0]
    assert {k: v for k, v in original.items() if k != "sha256"} == {k: v for k, v in copy.items() if k != "sha256"}
    assert target.stat().st_size < trained.stat().st_size
    load_checkpoint(target, env_id="sky_scrapers_v0", env_options=OPTIONS)
    env = sky_envs.make("sky_scrapers_v0", **OPTIONS)
    env.reset(seed=1)
    agent = make_agent(f"{target}@8", env_id="sky_scrapers_v0", env_options=OPTIONS)
    assert env.last()[0]["action_mask"][agent.act(env.last()[0], env.unwrapped.game_state)]


def test_a_damaged_source_is_refused_with_a_message(tmp_path, capsys):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    assert ship.main([str(bad), str(tmp_path / "out.pt")]) == 2
    assert "damaged or truncated" in capsys.readouterr().err
    assert not (tmp_path / "out.pt").exists()


def test_recorded_search_settings_are_the_search_defaults(trained, tmp_path, capsys):
    target = tmp_path / "policy.pt"
    assert ship.main([str(trained), str(target), "--rollout-weight", "0.5", "--c-puct", "0.8", "--positions", "50"]) == 0
    assert read_checkpoint(target)[0]["search"] == {"rollout_weight": 0.5, "c_puct": 0.8}
    spec = dict(env_id="sky_scrapers_v0", env_options=OPTIONS)
    assert make_agent(f"{target}@8", **spec).search.rollout_weight == 0.5
    assert make_agent(f"{target}@8", **spec).search.c_puct == 0.8
    assert make_agent(f"{target}@8", rollout_weight=0.0, **spec).search.rollout_weight == 0.0
    assert make_agent(f"{trained}@8", **spec).search.rollout_weight == 0.0
    assert ship.main([str(trained), str(tmp_path / "bad.pt"), "--rollout-weight", "2"]) == 2
    assert "rollout_weight must be a number in [0, 1]" in capsys.readouterr().err and not (tmp_path / "bad.pt").exists()


def test_a_recorded_rollout_policy_is_the_search_default_where_the_game_has_one(trained, tmp_path, capsys):
    target = tmp_path / "policy.pt"
    assert ship.main([str(trained), str(target), "--rollout-weight", "0.5", "--rollout-policy", "greedy",
                      "--leaves-per-call", "1", "--solver", "--positions", "50"]) == 0
    assert read_checkpoint(target)[0]["search"] == {"rollout_weight": 0.5, "rollout_policy": "greedy",
                                                    "leaves_per_call": 1, "solver": True}
    agent = make_agent(f"{target}@8", env_id="sky_scrapers_v0", env_options=OPTIONS)
    assert agent.search.rollout_policy == "greedy" and agent.search.leaves_per_call == 1 and agent.search.solver
    assert not make_agent(f"{target}@8", solver=False).search.solver
    assert make_agent(f"{target}@8", rollout_policy="random").search.rollout_policy == "random"
    game = sky_envs.make_game("sky_towers_v0")  # hidden cards: no array move values
    policy = build_policy(SPEC, game.observation_shape, game.num_actions)
    towers = save_checkpoint(tmp_path / "towers.pt", policy, policy_metadata(game, {}, SPEC))
    assert ship.main([str(towers), str(tmp_path / "out.pt"), "--rollout-policy", "greedy"]) == 2
    assert "greedy playouts need the game's array move values" in capsys.readouterr().err
    assert not (tmp_path / "out.pt").exists()


def test_a_recorded_gumbel_root_is_the_search_default_and_puct_stays_one_suffix_away(trained, tmp_path, capsys):
    target = tmp_path / "policy.pt"
    assert ship.main([str(trained), str(target), "--root", "gumbel", "--gumbel-k", "8", "--gumbel-scale", "0.5",
                      "--c-scale", "0.3", "--c-puct", "0.8", "--positions", "20"]) == 0
    assert read_checkpoint(target)[0]["search"] == {"root": "gumbel", "gumbel_k": 8, "gumbel_scale": 0.5,
                                                    "c_scale": 0.3, "c_puct": 0.8}
    spec = dict(env_id="sky_scrapers_v0", env_options=OPTIONS)
    search = make_agent(f"{target}@8", **spec).search
    assert (search.root, search.gumbel_k, search.gumbel_scale, search.c_scale) == ("gumbel", 8, 0.5, 0.3)
    assert make_agent(f"{target}@8+puct", **spec).search.root == "puct"
    assert make_agent(f"{trained}@8", **spec).search.root == "puct"
    assert ship.main([str(trained), str(tmp_path / "bad.pt"), "--gumbel-k", "0"]) == 2
    assert "gumbel_k must be a positive integer" in capsys.readouterr().err and not (tmp_path / "bad.pt").exists()
    with pytest.raises(SystemExit):
        ship.main([str(trained), str(tmp_path / "bad.pt"), "--root", "alphabeta"])
    assert "invalid choice" in capsys.readouterr().err and not (tmp_path / "bad.pt").exists()


def test_a_recorded_exact_endgame_is_the_search_default(trained, tmp_path, capsys):
    target = tmp_path / "policy.pt"
    assert ship.main([str(trained), str(target), "--exact-nodes", "50000", "--positions", "20"]) == 0
    assert read_checkpoint(target)[0]["search"] == {"exact_nodes": 50000}
    spec = dict(env_id="sky_scrapers_v0", env_options=OPTIONS)
    assert make_agent(f"{target}@8", **spec).search.exact.max_nodes == 50000
    assert make_agent(f"{target}@8", exact_nodes=0, **spec).search.exact is None
    assert make_agent(f"{trained}@8", **spec).search.exact is None
    assert ship.main([str(trained), str(tmp_path / "bad.pt"), "--exact-nodes", "-3"]) == 2
    assert "exact_nodes must be an integer >= 0" in capsys.readouterr().err and not (tmp_path / "bad.pt").exists()


def test_a_recipe_is_recorded_beside_the_training_command_and_must_name_the_checkpoints_env(trained, tmp_path, capsys):
    target = tmp_path / "policy.pt"
    assert ship.main([str(trained), str(target), "--recipe", "sky_scrapers_v0", "--positions", "20"]) == 0
    training = read_checkpoint(target)[0]["training"]
    assert training["recipe"] == "python -m training.recipe sky_scrapers_v0"
    assert training["command"] == "python -m x" and training["steps"] == 123
    assert ship.main([str(trained), str(tmp_path / "other.pt"), "--recipe", "scala_v0", "--positions", "20"]) == 2
    assert "names another env" in capsys.readouterr().err and not (tmp_path / "other.pt").exists()


def test_every_ship_setting_a_recipe_can_name_is_an_option_of_the_command(capsys):
    from training.recipe_file import SHIP_OPTIONS
    with pytest.raises(SystemExit):
        ship.main(["--help"])
    usage = capsys.readouterr().out
    assert all(flag in usage for flag in SHIP_OPTIONS.values())
