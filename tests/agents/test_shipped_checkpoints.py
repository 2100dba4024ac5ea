"""The shipped checkpoints: they load for today's envs, play legally raw and with search, and
their reports play enough games (tests/project/test_shipped_agents_page.py checks the docs
page that shows them)."""

import json

import numpy as np
import pytest

import sky_envs
from sky_envs.agents import PolicyAgent, SearchAgent, make_agent
from sky_envs.agents.checkpoint import read_checkpoint
from training.tournament import match
from tests import REPO_ROOT

ROOT = REPO_ROOT / "checkpoints"
SHIPPED = sorted(path.parent.name for path in ROOT.glob("*/policy.pt"))


def test_every_builtin_env_has_a_shipped_checkpoint():
    assert SHIPPED == ["golden_rush_v0", "highrise_heist_v0", "scala_v0", "sky_scrapers_v0", "sky_towers_v0",
                       "skybridge_v0"]


def play(env_id, options, agents, seed):
    """A game through the AEC env; every action must be legal (``raw_env`` raises otherwise)."""
    env = sky_envs.make_raw(env_id, **options)
    env.reset(seed=seed)
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        seat = env.unwrapped.possible_agents.index(name)
        action = None if termination or truncation else agents[seat].act(observation, env.unwrapped.game_state)
        env.step(action)


@pytest.mark.parametrize("env_id", SHIPPED)
def test_a_shipped_checkpoint_fits_todays_env_and_plays(env_id):
    path = ROOT / env_id / "policy.pt"
    assert path.stat().st_size < 5_000_000  # the size limit; large networks ship float16 weights
    metadata, _ = read_checkpoint(path)
    options = metadata["env_options"]
    game = sky_envs.make_game(env_id, **options)
    assert metadata["env_id"] == game.env_id and tuple(metadata["observation_shape"]) == game.observation_shape
    training = metadata["training"]
    # how to make it again: its training command over a config of the repo, or the env's recipe
    assert (training["command"].startswith("python -m training.train --config configs/")
            or training.get("recipe") == f"python -m training.recipe {env_id}"), training
    assert {"seed", "steps", "wall_clock_s", "algorithm"} <= set(training)
    raw = make_agent(str(path), env_id=env_id, env_options=options, seed=0)
    search = make_agent(f"{path}@8", env_id=env_id, env_options=options, seed=0)
    assert isinstance(raw, PolicyAgent) and isinstance(search, SearchAgent)
    settings = {"rollout_weight": 0.0, "c_puct": 1.5, **metadata.get("search", {})}  # recorded ones are the defaults
    assert (search.search.rollout_weight, search.search.c_puct) == (settings["rollout_weight"], settings["c_puct"])
    others = [make_agent("random", seed=1)] * (game.num_players - 1)
    play(env_id, options, [raw, *others], seed=0)
    play(env_id, options, [*others, search], seed=1)
    report = json.loads((ROOT / env_id / "report.json").read_text())
    assert report["env_id"] == env_id   # the report played the checkpoint's game (options with defaults filled in)
    assert sky_envs.make_game(env_id, **report["env_options"]).options() == game.options()
    assert any(p["a"].startswith("policy") or p["b"].startswith("policy") for p in report["pairings"])


@pytest.mark.parametrize("env_id", SHIPPED)
def test_every_shipped_report_plays_at_least_200_games_a_pairing(env_id):
    """The issue's bar for a reported figure: smaller samples mislead."""
    for path in sorted((ROOT / env_id).glob("report*.json")):
        for pairing in json.loads(path.read_text())["pairings"]:
            assert pairing["games"] >= 200, (path.name, pairing["a"], pairing["b"], pairing["games"])


@pytest.mark.parametrize("env_id", SHIPPED)
def test_search_with_a_shipped_checkpoint_beats_random_at_a_small_budget(env_id):
    """Clearly: 0.7 with two seats, twice the uniform share (one winner of four) with four."""
    path = ROOT / env_id / "policy.pt"
    metadata = read_checkpoint(path)[0]
    options = metadata["env_options"]
    players = sky_envs.make_game(env_id, **options).num_players
    # a recorded exact endgame runs here with a budget a test affords (the reports measure the shipped one)
    affordable = {"exact_nodes": 50_000} if metadata.get("search", {}).get("exact_nodes") else {}
    search = make_agent(f"{path}@32", env_id=env_id, env_options=options, seed=0, **affordable)
    result = match(env_id, options, ("search", search), ("random", make_agent("random", seed=1)), 10, seed=2)
    assert result.score / result.games >= min(0.7, 2 / players)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", SHIPPED)
def test_the_reports_scores_reproduce_on_a_smaller_sample(env_id):
    """Each raw-policy pairing of report.json, replayed on 40 games, lands inside a wide band."""
    path = ROOT / env_id / "policy.pt"
    report = json.loads((ROOT / env_id / "report.json").read_text())
    options = report["env_options"]
    for pairing in report["pairings"]:
        if pairing["a"] != "policy" or pairing["b"] not in ("random", "greedy"):
            continue
        raw = make_agent(str(path), env_id=env_id, env_options=options, seed=0)
        result = match(env_id, options, ("policy", raw), (pairing["b"], make_agent(pairing["b"], seed=0)), 40,
                       seed=1000)
        assert abs(result.score / result.games - pairing["score"]) < 0.2, pairing
    assert np.isfinite(list(report["ratings"].values())).all()


def test_a_shipped_checkpoint_with_search_is_a_gymnasium_opponent():
    import gymnasium

    path = ROOT / "sky_scrapers_v0" / "policy.pt"
    options = read_checkpoint(path)[0]["env_options"]
    env = gymnasium.make("sky_envs/sky_scrapers-v0", opponent=f"{path}@8", **options)
    env.reset(seed=0)
    terminated = truncated = False
    while not (terminated or truncated):
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        _, reward, terminated, truncated, _ = env.step(action)
    assert reward in (-1.0, 0.0, 1.0)
