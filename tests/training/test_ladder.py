"""The ladder (``python -m training.ladder``): its rating fit, its pairings, the command on tiny
budgets (journal, resume, figures) and the docs include that renders it."""

import json
import math
import os
import signal
import threading
import time

import pytest

from tests import REPO_ROOT
from training import ladder
from training.ratings import bradley_terry

RESULTS = [{"a": "random", "b": "greedy", "wins": 3, "draws": 1, "losses": 16},
           {"a": "greedy", "b": "mcts", "wins": 8, "draws": 4, "losses": 8},
           {"a": "random", "b": "mcts", "wins": 1, "draws": 0, "losses": 19},
           {"a": "mcts", "b": "net", "wins": 5, "draws": 0, "losses": 15}]
NAMES = ["random", "greedy", "mcts", "net"]


def test_two_seat_ratings_are_the_projects_bradley_terry_fit():
    fitted = ladder.fit_ratings(NAMES, RESULTS)
    reference = bradley_terry(NAMES, RESULTS, anchor="random")
    for name in NAMES:
        assert fitted[name]["rating"] == pytest.approx(reference[name], abs=1e-6)
    assert fitted["random"]["ci95"] == [0.0, 0.0]


def test_intervals_follow_the_games_played():
    """One pairing at 0.75: the standard error is the Elo scale over sqrt(n p (1 - p)) (prior
    draws included), so four times the games halve the interval."""
    widths = []
    for n in (40, 160):
        result = {"a": "random", "b": "x", "wins": n // 4, "draws": 0, "losses": 3 * n // 4}
        r = ladder.fit_ratings(["random", "x"], [result])["x"]
        p = (n / 4 + 0.5) / (n + 1)
        assert r["se"] == pytest.approx(ladder.ELO / math.sqrt((n + 1) * p * (1 - p)), rel=1e-6)
        assert r["ci95"][0] < r["rating"] < r["ci95"][1]
        widths.append(r["ci95"][1] - r["ci95"][0])
    assert widths[1] == pytest.approx(widths[0] / 2, rel=0.05)


def test_one_seat_against_three_copies_is_even_at_a_quarter():
    """Golden Rush's pairings: a alone against three copies of b; a quarter of the wins is an
    even match (Luce's choice rule), not a weaker a."""
    result = {"a": "random", "b": "x", "wins": 250, "draws": 0, "losses": 750}
    assert abs(ladder.fit_ratings(["random", "x"], [result], seats=4)["x"]["rating"]) < 2
    assert ladder.fit_ratings(["random", "x"], [result], seats=2)["x"]["rating"] > 150
    ratings = ladder.fit_ratings(["random", "x"], [result], seats=4)
    assert ladder.expected_score(ratings, "random", "x", seats=4) == pytest.approx(0.25, abs=0.001)


def test_agents_not_connected_to_random_are_left_out():
    fitted = ladder.fit_ratings(NAMES + ["alone"], RESULTS + [{"a": "alone", "b": "other", "wins": 1, "draws": 0,
                                                               "losses": 0}])
    assert sorted(fitted) == sorted(NAMES)


def test_each_agent_plays_its_next_neighbours():
    assert ladder.ladder_pairings(["a", "b", "c", "d"]) == [("a", "b"), ("a", "c"), ("b", "c"), ("b", "d"),
                                                             ("c", "d")]
    assert ladder.game_rounds("20,50,100") == [20, 50, 100] and ladder.game_rounds("7") == [7]
    for bad in ("0", "50,20", "x"):
        with pytest.raises(ValueError, match="--games"):
            ladder.game_rounds(bad)


@pytest.mark.parametrize("env_id", sorted(ladder.LADDERS))
def test_every_games_ladder_has_the_issues_agents(env_id):
    agents = ladder.LADDERS[env_id]
    expected = {"random", "greedy", "mcts@100", "mcts@400", "mcts@1000", "mcts@4000", "pretrained",
                "pretrained@32", "pretrained@200"}
    two_seats = env_id != "golden_rush_v0"
    assert set(agents) == expected | ({"alphabeta@2"} if two_seats else set())
    assert agents[0] == "random"


AGENTS = ["random", "greedy", "mcts@4", "pretrained"]


def run_ladder(out, *extra):
    return ladder.main(["skybridge_v0", "--agents", *AGENTS, "--out", str(out), *extra])


def test_the_ladder_command_writes_ratings_intervals_and_picture(tmp_path):
    assert run_ladder(tmp_path, "--games", "2,3") == 0
    data = json.loads((tmp_path / "ladder.json").read_text())
    assert data["complete"] and data["seats"] == 2 and data["agents"] == AGENTS and data["rounds"] == [2, 3]
    assert sorted(data["ratings"]) == sorted(AGENTS) and data["ratings"]["random"]["rating"] == 0
    for name, r in data["ratings"].items():
        assert r["ci95"][0] <= r["rating"] <= r["ci95"][1]
    assert [(p["a"], p["b"], p["games"]) for p in data["pairings"]] == [
        (a, b, 3) for a, b in ladder.ladder_pairings(AGENTS)]
    assert all(p["seconds_per_game"] > 0 and 0 <= p["expected"] <= 1 for p in data["pairings"])
    assert (tmp_path / "ladder.png").read_bytes()[:4] == b"\x89PNG"
    journal = (tmp_path / "ladder.games.jsonl").read_text().splitlines()
    assert len(journal) == 1 + 3 * len(data["pairings"])
    # the docs include shows the picture, every agent's rating and every pairing
    text = ladder.ladder_markdown(data, "../../checkpoints/skybridge_v0/ladder.png")
    assert "![skybridge_v0 ladder](../../checkpoints/skybridge_v0/ladder.png)" in text
    for name, r in data["ratings"].items():
        assert f"| {name} | {r['rating']:.0f} | [{r['ci95'][0]:.0f}, {r['ci95'][1]:.0f}] |" in text
    for p in data["pairings"]:
        assert f"| {p['a']} vs {p['b']} | {p['wins']} | {p['draws']} | {p['losses']} |" in text
    # more games later: only the new ones are played, and an existing journal needs --resume
    with pytest.raises(SystemExit):
        run_ladder(tmp_path, "--games", "4")
    assert run_ladder(tmp_path, "--games", "4", "--resume") == 0
    assert len((tmp_path / "ladder.games.jsonl").read_text().splitlines()) == 1 + 4 * len(data["pairings"])


def test_a_stopped_ladder_resumes_to_the_same_ratings(tmp_path):
    whole, stopped = tmp_path / "whole", tmp_path / "stopped"
    assert run_ladder(whole, "--games", "3") == 0
    journal = stopped / "ladder.games.jsonl"

    def stop_after_four_games():   # a real SIGTERM to this process, inside the ladder's games
        while not (journal.is_file() and len(journal.read_text().splitlines()) >= 5):
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGTERM)

    watcher = threading.Thread(target=stop_after_four_games, daemon=True)
    watcher.start()
    assert run_ladder(stopped, "--games", "3") == 128 + signal.SIGTERM
    watcher.join()
    partial = json.loads((stopped / "ladder.json").read_text())
    assert not partial["complete"]
    # the docs say so, name what waits for games and the command that plays it
    text = ladder.ladder_markdown(partial, "ladder.png")
    waiting = [p for p in partial["pairings"] if not p["games"]]
    assert waiting and f"**Not finished**: {len(waiting)} of {len(partial['pairings'])} pairings" in text
    assert "not played yet" in text and "--resume` plays the rest" in text
    # a ladder whose every pairing has games, stopped in a later round, says how far that round went
    assert partial["rounds"] == [3]
    later = {**partial, "rounds": [3, 5],
             "pairings": [{**p, "games": 5 if i == 0 else 3} for i, p in enumerate(partial["pairings"])]}
    words = (f"**Not finished**: every pairing has played 3 games or more (1 of {len(partial['pairings'])} have "
             "reached the round of 5)")
    assert words in ladder.unfinished_words(later)
    # a ladder.json written before it recorded its rounds: they are read from its command
    older = {key: value for key, value in later.items() if key != "rounds"}
    assert words in ladder.unfinished_words({**older, "command": "python -m training.ladder x --games 3,5"})
    assert ladder.recorded_rounds("python -m training.ladder x") == [20, 50, 100]
    assert "--out" in partial["command"] and "--out" not in text  # the shipped ladder's folder is the default
    assert ladder.shipped_command("python -m training.ladder x --out /runs/l --games 20,50 --resume") == \
        "python -m training.ladder x --games 20,50"
    assert run_ladder(stopped, "--games", "3", "--resume") == 0
    first, second = (json.loads((d / "ladder.json").read_text()) for d in (whole, stopped))
    assert second["ratings"] == first["ratings"]
    assert [(p["wins"], p["draws"], p["losses"]) for p in second["pairings"]] == \
        [(p["wins"], p["draws"], p["losses"]) for p in first["pairings"]]


def test_the_docs_render_a_recipe_and_a_ladder_include_for_every_shipped_agent(tmp_path):
    """docs/_ext/generate.py's includes: every shipped agent's recipe, and its ladder or a
    line saying how to play it; the page includes both."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_generate", REPO_ROOT / "docs" / "_ext" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    texts = generate.agent_includes(REPO_ROOT / "checkpoints")
    page = (REPO_ROOT / "docs" / "guides" / "shipped_agents.md").read_text()
    for policy in (REPO_ROOT / "checkpoints").glob("*/policy.pt"):
        env_id = policy.parent.name
        assert f"python -m training.recipe {env_id}" in texts[f"{env_id}.recipe.inc"]
        ladder_text = texts[f"{env_id}.ladder.inc"]
        has_ladder = (policy.parent / "ladder.json").is_file()
        assert ("ladder.png)" in ladder_text) == has_ladder
        assert f"python -m training.ladder {env_id}" in ladder_text or has_ladder
        for kind in ("recipe", "ladder"):
            assert f"```{{include}} _generated/{env_id}.{kind}.inc\n```" in page


def test_a_ladder_of_a_network_shipped_before_says_so(tmp_path):
    """A ladder played before its game's network was replaced keeps its games, and the docs
    say that its network rows rate the old weights; a current ladder gets no such line."""
    from training.ladder import other_network_markdown, rated_networks

    journal = tmp_path / "ladder.games.jsonl"
    header = {"evaluation": {"env_id": "scala_v0", "agents": [{"spec": "random"}, {"spec": "pretrained", "sha256": "a" * 64},
                                                              {"spec": "pretrained@32", "sha256": "a" * 64}]}}
    journal.write_text(json.dumps(header) + "\n" + json.dumps({"a": "random", "b": "pretrained", "game": 0, "reward": -1.0}) + "\n")
    assert rated_networks(journal) == {"a" * 64}
    assert other_network_markdown(rated_networks(journal), "a" * 64) == ""
    line = other_network_markdown(rated_networks(journal), "b" * 64)
    assert "`aaaaaaaaaaaa`" in line and "`bbbbbbbbbbbb`" in line and "has not played the ladder yet" in line
    for policy in (REPO_ROOT / "checkpoints").glob("*/policy.pt"):   # the shipped ladders: each says whether it is current
        if (policy.parent / "ladder.json").is_file():
            rated = rated_networks(policy.parent / "ladder.games.jsonl")
            assert rated, policy.parent.name   # every shipped ladder rates the network it names


def test_a_ladder_replays_only_the_rows_of_a_checkpoint_shipped_again(tmp_path):
    """``--resume --replay-changed``: the games between unchanged agents carry over line for
    line, the pairings of the changed checkpoint are played again, and the ratings come out as
    a fresh ladder's; anything else that differs is refused."""
    whole, again = tmp_path / "whole", tmp_path / "again"
    assert run_ladder(whole, "--games", "3") == 0
    assert run_ladder(again, "--games", "3") == 0
    journal = again / "ladder.games.jsonl"
    header, *games = journal.read_text().splitlines()
    earlier = json.loads(header)   # as if the games were played by a network shipped before this one
    for agent in earlier["evaluation"]["agents"]:
        if agent["spec"] == "pretrained":
            agent["sha256"] = "0" * 64
    journal.write_text("\n".join([json.dumps(earlier), *games]) + "\n")
    with pytest.raises(SystemExit):   # --resume alone refuses games of another network
        run_ladder(again, "--games", "3", "--resume")
    with pytest.raises(SystemExit):
        run_ladder(again, "--games", "3", "--replay-changed")   # it goes with --resume
    dropped = ladder.keep_unchanged_games(journal, json.loads(header)["evaluation"])
    assert dropped == {pair for pair in ladder.ladder_pairings(AGENTS) if "pretrained" in pair}
    kept = journal.read_text().splitlines()
    assert kept[0] == header and kept[1:] == [line for line in games if "pretrained" not in line]
    journal.write_text("\n".join([json.dumps(earlier), *games]) + "\n")
    assert run_ladder(again, "--games", "3", "--resume", "--replay-changed") == 0
    first, second = (json.loads((d / "ladder.json").read_text()) for d in (whole, again))
    assert second["ratings"] == first["ratings"]
    assert sorted(journal.read_text().splitlines()[1:]) == sorted(games)
    assert ladder.shipped_command(second["command"]) == ladder.shipped_command(first["command"])
    other_seed = {**json.loads(header)["evaluation"], "seed": 5}
    with pytest.raises(ValueError, match="differs in seed"):
        ladder.keep_unchanged_games(journal, other_seed)
