"""The shipped sets of solved positions (benchmarks/solved/) and the command that makes them
and measures mistake rates: every file parses, every position loads with the legal moves it
lists, the choice matters in each, and its labels re-solve to the same values (a sample with
the game-agnostic solver in the default run, the whole file under ``slow``)."""

import json

import numpy as np
import pytest

import sky_envs
from benchmarks import solved_positions
from benchmarks.solved_positions import Labeller, Recipe, load_position, make_set, read_set
from sky_envs.agents.solver import Solver

SHIPPED = sorted(solved_positions.SETS.glob("*.jsonl"))


def header_recipe(header) -> Recipe:
    return Recipe(**{k: tuple(map(tuple, v)) if k == "pairings" else v for k, v in header["recipe"].items()})


def test_every_shipped_set_has_its_recipe():
    assert "sky_scrapers_v0" in {path.stem for path in SHIPPED}
    assert {path.stem for path in SHIPPED} <= set(solved_positions.RECIPES)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.stem)
def test_shipped_set_parses_and_every_choice_matters(path):
    header, positions = read_set(path)
    assert header["env_id"] == path.stem and header["command"].startswith("python -m benchmarks.solved_positions make")
    count = int(header["command"].split("--count ")[1].split()[0])
    assert 1 <= len(positions) <= count   # a set grows towards its count, resumably
    game = sky_envs.make_game(header["env_id"], **header["env_options"])
    recipe = header_recipe(header)
    seen = set()
    for entry in positions:
        load_position(game, entry)
        values = set(entry["moves"].values())
        assert len(values) > 1 and entry["value"] == max(values) and values <= {-1.0, 0.0, 1.0}
        assert recipe.low <= entry["left"] <= recipe.high
        seen.add((entry["game"], entry["ply"]))
    assert len(seen) == len(positions)


def _resolve(header, entries, recipe=None):
    """Each entry's moves solved afresh: by the game-agnostic solver, or the labeller of ``recipe``."""
    game = sky_envs.make_game(header["env_id"], **header["env_options"])
    labeller = Labeller(game, recipe) if recipe is not None else None
    for entry in entries:
        state = load_position(game, entry)
        if labeller is None:
            solution = Solver().solve_moves(state)
            assert solution.solved
            moves = {state.action_to_string(a): v for a, v in solution.moves.items()}
        else:
            moves = labeller.label(state)[0]["moves"]
        assert moves == entry["moves"], entry["position"]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.stem)
def test_a_sample_of_labels_resolves_with_the_game_agnostic_solver(path):
    """Eight positions that took the fewest nodes, and one from the middle of the file."""
    header, positions = read_set(path)
    cheapest = sorted(positions, key=lambda entry: entry["nodes"])
    sample = cheapest[:8] + [cheapest[len(cheapest) // 3]]
    _resolve(header, sample)


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.stem)
def test_every_label_resolves(path):
    """The whole file, with the labeller the recipe names (a fresh one)."""
    header, positions = read_set(path)
    recipe = header_recipe(header)
    _resolve(header, positions, recipe)


TINY = Recipe("stacks", 4, 9, per_game=3, max_nodes=200_000, pairings=(("greedy", "random"),),
              options=dict(board="square", rows=4, cols=4, positioning="random"))


def test_make_plays_samples_solves_and_resumes(tmp_path):
    out = tmp_path / "tiny.jsonl"
    make_set("sky_scrapers_v0", 4, out, recipe=TINY, log=lambda text: None)
    header, first = read_set(out)
    assert len(first) == 4 and header["recipe"]["low"] == 4
    progress = json.loads(out.with_suffix(".progress.json").read_text())
    assert progress["kept"] == 4 and sum(progress["attempted"].values()) >= 4
    make_set("sky_scrapers_v0", 7, out, recipe=TINY, log=lambda text: None)   # resumes: appends
    header, more = read_set(out)
    assert more[:4] == first and len(more) == 7 and "--count 7" in header["command"]
    assert len({(p["game"], p["ply"]) for p in more}) == 7
    _resolve(header, more)
    with pytest.raises(ValueError, match="seed"):
        make_set("sky_scrapers_v0", 8, out, seed=1, recipe=TINY)


def test_mistakes_command_reports_every_agent(tmp_path, capsys):
    out = tmp_path / "tiny.jsonl"
    make_set("sky_scrapers_v0", 5, out, recipe=TINY, log=lambda text: None)
    report_path = tmp_path / "mistakes.json"
    solved_positions.main(["mistakes", "--set", str(out), "--agents", "greedy", "solver", "random",
                           "--json", str(report_path), "--by", "left", "value"])
    table = capsys.readouterr().out
    report = json.loads(report_path.read_text())
    _, positions = read_set(out)
    assert report["positions"] == 5 and set(report["agents"]) == {"greedy", "solver", "random"}
    for spec, row in report["agents"].items():
        assert 0 <= row["low"] <= row["rate"] <= row["high"] <= 1 and row["positions"] == 5
        assert f"| {spec} |" in table
        for key in ("left", "value"):   # the breakdowns count every position once, and every mistake
            groups = row["by"][key]
            assert set(groups) == {f"{p[key]:g}" if isinstance(p[key], float) else str(p[key]) for p in positions}
            assert sum(g["positions"] for g in groups.values()) == 5
            assert sum(g["mistakes"] for g in groups.values()) == row["mistakes"]
    assert "by left:" in table and "by value:" in table
    random_mover = report["random_mover"]   # the mean share of each position's moves that lower its value
    assert random_mover["rate"] == pytest.approx(np.mean(
        [np.mean([v < p["value"] for v in p["moves"].values()]) for p in positions]))
    assert 0 < random_mover["rate"] < 1    # every position of a set has moves of different values
    assert report["agents"]["solver"]["mistakes"] == 0   # exact play never lowers the value
    assert "mistakes --set" in report["command"]


def test_malformed_sets_are_refused_with_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"header": {"format": "something else"}}\n')
    with pytest.raises(ValueError, match=":1: format"):
        read_set(path)
    path.write_text(json.dumps({"header": {"format": solved_positions.FORMAT}}) + '\n{"game": 1}\n')
    with pytest.raises(ValueError, match=":2: missing"):
        read_set(path)
    game = sky_envs.make_game("sky_scrapers_v0", board="square", rows=4, cols=4)
    state = game.new_initial_state(np.random.default_rng(0))
    entry = {"game": 0, "ply": 0, "seat": 1 - state.current_player, "position": state.to_text(), "moves": {}}
    with pytest.raises(ValueError, match="player_"):
        load_position(game, entry)


def test_solver_reach_walks_back_from_the_end_until_it_misses(capsys):
    from benchmarks.solver_reach import main, reach

    rows = reach("skybridge_v0", games=1, seconds=5, misses=1, max_plies_left=3, log=lambda text: None)
    assert [row["plies_left"] for row in rows] == list(range(1, len(rows) + 1))
    assert rows[0]["solved"] and rows[0]["value"] in (-1.0, 0.0, 1.0)   # the last decision: one move to the end
    assert all(row["solved"] for row in rows[:-1])                      # it stops at the first miss
    values = reach("skybridge_v0", games=1, seconds=5, misses=1, max_plies_left=3, value_only=True, log=lambda text: None)
    for by_value, by_moves in zip(values, rows):   # the same game (seeded): the same values
        if by_value["solved"] and by_moves["solved"]:
            assert by_value["value"] == by_moves["value"]
    with pytest.raises(SystemExit):
        main(["--env", "sky_towers_v0"])
    assert "no recipe" in capsys.readouterr().err
