"""Replays in the browser, through the replay server's API (a real server on an ephemeral
port): a folder lists its games, every position of a game is the one its replay file
replays to, and malformed or unknown requests are refused."""

from __future__ import annotations

import pytest

from sky_envs.agents import make_agent
from sky_envs.core.replay_file import load_replay, positions
from sky_envs.replay import main
from tests.play.play_web_support import call, replay_server
from training.tournament import match


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """A folder of two saved games (as ``--save-games`` writes them) and one broken file."""
    folder = tmp_path_factory.mktemp("games")
    match("skybridge_v0", {}, ("random", make_agent("random")), ("greedy", make_agent("greedy")), games=2, seed=3,
          save_games=folder)
    (folder / "broken.json").write_text('{"format": "something else"}')
    (folder / "notes.txt").write_text("not a replay")
    return folder


def test_a_folder_lists_its_games_and_every_position_replays(games):
    with replay_server(games) as server:
        status, listing, _ = call(server, "GET", "/api/state")
        assert status == 200 and listing["mode"] == "replays"
        names = [game["name"] for game in listing["games"]]
        assert names == sorted(path.name for path in games.glob("*.json")) and len(names) == 3
        assert "format tag" in listing["games"][0]["error"]
        name = "random-vs-greedy-game0000.json"
        replay = load_replay(games / name)
        entry = listing["games"][names.index(name)]
        assert entry["moves"] == len(replay["moves"]) and entry["env_id"] == "skybridge_v0"
        expected = [state.to_text() for state, _ in positions(replay)]
        for index in (0, 1, len(expected) - 1, 2, 1):
            status, view, _ = call(server, "GET", f"/api/replay?game={name}&index={index}")
            assert status == 200, view
            assert view["mode"] == "replay" and view["index"] == index and view["count"] == len(expected)
            assert view["position"] == expected[index]
            assert view["players"][0]["by"] == "random" and len(view["moves"]) == len(replay["moves"])
            assert bool(view["last_move_ids"]) == (index > 0)
            assert bool(view["result_words"]) == (index == len(expected) - 1)


@pytest.mark.parametrize("query, status, words", [
    ("game=nothere.json&index=0", 404, "no replay named"),
    ("game=random-vs-greedy-game0000.json&index=99999", 400, "has moves"),
    ("game=random-vs-greedy-game0000.json&index=-1", 400, "index must be"),
    ("game=random-vs-greedy-game0000.json&index=1&index=2", 400, "given twice"),
    ("game=random-vs-greedy-game0000.json&extra=1", 400, "unexpected field"),
    ("game=../notes.txt", 404, "no replay named"),
    ("game=broken.json", 422, "does not replay"),
    ("game=%ff", 400, "malformed"),
])
def test_bad_replay_requests_are_refused(games, query, status, words):
    with replay_server(games) as server:
        got, answer, _ = call(server, "GET", f"/api/replay?{query}")
        assert got == status and words in answer["error"], answer
        assert call(server, "POST", "/api/replay", {})[0] == 405
        assert call(server, "POST", "/api/move", {"move": 0})[0] == 404


def test_one_file_is_one_game(games):
    with replay_server(games / "random-vs-greedy-game0000.json") as server:
        listing = call(server, "GET", "/api/state")[1]
        assert [game["name"] for game in listing["games"]] == ["random-vs-greedy-game0000.json"]


def test_the_command_line_refuses_what_is_not_a_replay(games, tmp_path, capsys):
    for argv, words in (([str(tmp_path / "missing"), "--web"], "No such file"),
                        ([str(tmp_path), "--web"], "holds no replay files"),
                        ([str(games / "broken.json"), "--web"], "format tag")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2 and words in capsys.readouterr().err
