"""The shipped checkpoints: they load for today's envs, play legally raw and with search, and
their reports hold what README says."""

import json
import re

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
    assert training["command"].startswith("python -m training.train --config configs/")
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
    assert report["env_id"] == env_id and report["env_options"] == options
    assert any(p["a"].startswith("policy") or p["b"].startswith("policy") for p in report["pairings"])


#: README's "Trained agents" columns and the pairing each one shows: (report file, a, b)
TABLE_COLUMNS = {
    "raw vs random": ("report", "policy", "random"),
    "raw vs greedy": ("report", "policy", "greedy"),
    "raw vs mcts@100": ("report", "policy", "mcts@100"),
    "@100 vs random": ("report", "policy@100", "random"),
    "@100 vs greedy": ("report", "policy@100", "greedy"),
    "@100 vs mcts@100": ("report", "policy@100", "mcts@100"),
    "@200 vs mcts@400": ("report_search200", "policy@200", "mcts@400"),
}


def readme_table() -> dict[str, dict[str, str]]:
    """``{env_id: {column: cell}}`` of README's "Trained agents" table."""
    section = (ROOT.parent / "README.md").read_text().split("## Trained agents", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return {cells[0]: dict(zip(header, cells)) for cells in
            ([cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:])}


@pytest.mark.parametrize("env_id", SHIPPED)
def test_readmes_table_shows_the_shipped_reports(env_id):
    """Each figure of the table is its pairing's score in the report beside the checkpoint,
    with that pairing's game count: the table cannot drift from what ships."""
    row = readme_table()[env_id]
    for column, (stem, a, b) in TABLE_COLUMNS.items():
        figure = re.match(r"(\d\.\d\d) \(([\d,]+)\)", row[column])
        if figure is None:   # no such pairing (Golden Rush's search plays greedy): the cell says so
            assert row[column].startswith("—"), (column, row[column])
            continue
        report = json.loads((ROOT / env_id / f"{stem}.json").read_text())
        (pairing,) = [p for p in report["pairings"] if (p["a"], p["b"]) == (a, b)]
        assert abs(pairing["score"] - float(figure[1])) <= 0.005 + 1e-9, (column, pairing["score"], row[column])
        assert pairing["games"] == int(figure[2].replace(",", "")), (column, pairing["games"], row[column])


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
    options = read_checkpoint(path)[0]["env_options"]
    players = sky_envs.make_game(env_id, **options).num_players
    search = make_agent(f"{path}@32", env_id=env_id, env_options=options, seed=0)
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
