"""Replays: tournaments save their games, and a replay file reproduces the game it recorded."""

from __future__ import annotations

import json

import pytest
from PIL import Image

import sky_envs
from sky_envs.agents import make_agent
from sky_envs.core.replay_file import ReplayError, load_replay, notation_matches, positions
from sky_envs.replay import main, step_through, write_gif
from training.evaluate import main as evaluate_main
from training.tournament import match
from tests import REPO_ROOT

BUILTIN = [env_id for env_id in sky_envs.env_ids() if not env_id.startswith("tiny_")]


@pytest.fixture(scope="module")
def saved_games(tmp_path_factory):
    """One random-vs-random game per env, saved by the tournament code."""
    folder = tmp_path_factory.mktemp("games")
    for env_id in BUILTIN:
        match(env_id, {}, ("random", make_agent("random")), ("greedy", make_agent("greedy")), games=1, seed=3,
              save_games=folder / env_id)
    return folder


@pytest.mark.parametrize("env_id", BUILTIN)
def test_a_replay_reproduces_the_final_position_of_the_game_it_recorded(saved_games, env_id):
    (path,) = (saved_games / env_id).iterdir()
    assert path.name == "random-vs-greedy-game0000.json"
    replay = load_replay(path)
    assert (replay["env_id"], replay["seed"], replay["players"][0]) == (env_id, 3, "random")
    shown = list(positions(replay))
    assert len(shown) == len(replay["moves"]) + 1
    assert shown[-1][0].to_text() == replay["final"].strip()
    assert list(shown[-1][0].returns()) == replay["result"]["returns"] or not shown[-1][0].is_terminal()
    notation_matches(replay)


def test_evaluate_saves_one_replay_per_game(tmp_path):
    assert evaluate_main(["--env", "scala_v0", "--agents", "random", "greedy", "--games", "3", "--out",
                          str(tmp_path / "eval"), "--save-games", str(tmp_path / "games")]) == 0
    files = sorted(p.name for p in (tmp_path / "games").iterdir())
    assert files == [f"random-vs-greedy-game000{g}.json" for g in range(3)]
    seats = [json.loads((tmp_path / "games" / f).read_text())["players"] for f in files]
    assert seats == [["random", "greedy"], ["greedy", "random"], ["random", "greedy"]]


def test_a_gif_has_one_frame_per_position(saved_games, tmp_path):
    path = next((saved_games / "scala_v0").iterdir())
    replay = load_replay(path)
    out = tmp_path / "game.gif"
    assert write_gif(replay, out, max_moves=5, scale=0.5) == 6
    with Image.open(out) as image:
        assert image.n_frames == 6 and image.is_animated
    assert main([str(path), "--gif", str(tmp_path / "all.gif")]) == 0
    with Image.open(tmp_path / "all.gif") as image:
        assert image.n_frames == len(replay["moves"]) + 1


def test_stepping_through_and_printing_every_position(saved_games, capsys):
    path = next((saved_games / "skybridge_v0").iterdir())
    replay = load_replay(path)
    answers, output = iter(["", "", "b", "x", "3", "q"]), []
    step_through(replay, lambda prompt: next(answers), output.append)
    assert [line.split("\n")[0].split(":")[0].split(" {")[0] for line in output if not line.startswith("'x'")] == \
        ["start of skybridge_v0", "move 1/" + str(len(replay["moves"])), "move 2/" + str(len(replay["moves"])),
         "move 1/" + str(len(replay["moves"])), "move 1/" + str(len(replay["moves"])), "move 3/" + str(len(replay["moves"]))]
    assert main([str(path), "--all"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\nmove ") == len(replay["moves"]) and "result:" in printed


def broken(path, tmp_path, change) -> str:
    replay = json.loads(path.read_text())
    change(replay)
    out = tmp_path / "broken.json"
    out.write_text(json.dumps(replay))
    return str(out)


@pytest.mark.parametrize("change,message", [
    (lambda r: r.update(format="chess-pgn"), "format tag 'chess-pgn'"),
    (lambda r: r.update(version=7), "version 7"),
    (lambda r: r.update(env_id="go_v0"), "unknown env 'go_v0'"),
    (lambda r: r["moves"][1].update(action=0), "move 2 .* is illegal"),
    (lambda r: r["moves"][0].update(seat=1), "recorded for player_1"),
    (lambda r: r["moves"][0].update(text="a1-a2"), "recorded as action"),
    (lambda r: r["moves"].pop(), "not in the replay's final position"),
    (lambda r: r.update(start=r["start"].replace("O", "X", 1)), "not the one its seed deals"),
    (lambda r: r.update(moves="e5-d4"), "field 'moves' must be a list"),
])
def test_bad_replay_files_are_refused_with_the_reason(saved_games, tmp_path, capsys, change, message):
    path = broken(next((saved_games / "scala_v0").iterdir()), tmp_path, change)
    with pytest.raises(ReplayError, match=message):
        notation_matches(load_replay(path))
    with pytest.raises(SystemExit) as exit_info:
        main([path, "--all"])
    assert exit_info.value.code == 2 and "error:" in capsys.readouterr().err


def test_a_file_that_is_not_json_is_refused(tmp_path):
    (tmp_path / "x.json").write_text("not json")
    with pytest.raises(ReplayError, match="not a readable JSON replay"):
        load_replay(tmp_path / "x.json")


@pytest.mark.parametrize("env_id", BUILTIN)
def test_the_shipped_replays_replay_and_the_env_docs_show_them(env_id):
    from pathlib import Path
    import importlib

    folder = REPO_ROOT / "docs" / "replays"
    replay = load_replay(folder / f"{env_id}.json")
    notation_matches(replay)
    with Image.open(folder / f"{env_id}.gif") as image:
        assert image.n_frames == min(len(replay["moves"]), 30) + 1
    assert f"docs/replays/{env_id}.gif" in importlib.import_module(f"sky_envs.{env_id}").__doc__
