"""The speed benchmark runs and reports every figure the benchmarks guide
(docs/guides/benchmarks.md) reads from it (its timings are never asserted: they depend on the
machine)."""

import json
import sys

import pytest

from tests import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

import playout_speed  # noqa: E402
import search_speed  # noqa: E402
import throughput  # noqa: E402
import training_throughput  # noqa: E402
import vector_throughput  # noqa: E402


def test_throughput_reports_every_figure_of_each_env(tmp_path, capsys):
    out = tmp_path / "speed.json"
    throughput.main(["--seconds", "0.05", "--rounds", "2", "--slices", "3", "--json", str(out), "skybridge_v0"])
    report = json.loads(out.read_text())
    assert report["connect_four_v3"]["env_steps_per_s"] > 0 and report["connect_four_v3"]["user_env_steps_per_s"] > 0
    row = report["envs"]["skybridge_v0"]
    assert len(row["x_connect_four_v3_rounds"]) == 2 and len(row["user_x_connect_four_v3_rounds"]) == 2
    for key in ("env_steps_per_s", "x_connect_four_v3", "user_env_steps_per_s", "user_x_connect_four_v3",
                "raw_decisions_per_s", "clone_us", "mcts_simulations_per_s", "env_bytes", "states_1000_bytes"):
        assert row[key] > 0, key
    assert "skybridge_v0" in capsys.readouterr().out


def test_paired_rates_play_whole_games_in_every_slice():
    from pettingzoo.classic import connect_four_v3

    import sky_envs

    baseline, rate = throughput.paired_rates(connect_four_v3.env, lambda: sky_envs.make("scala_v0"), 0.04, 4)
    assert baseline > 0 and rate > 0
    player = throughput.RandomPlay(lambda: sky_envs.make("scala_v0"))
    player.play(0.0)   # a slice shorter than a game still ends the game it started
    assert player.steps > 0 and player.env.agents   # reset after the game, ready for the next


def test_vector_throughput_reports_every_env_engine_and_anchor(tmp_path, capsys):
    out = tmp_path / "vector.json"
    vector_throughput.main(["--seconds", "0.02", "--rounds", "2", "--num-envs", "1", "4", "--json", str(out),
                            "skybridge_v0", "scala_v0"])
    report = json.loads(out.read_text())
    assert report["anchors"]["connect_four_v3"]["decisions_per_s"] > 0
    for anchor in ("open_spiel_connect_four", "pgx_connect_four"):   # measured, or skipped with the reason
        assert anchor in report["anchors"] or report["skipped"][anchor]
    for env_id in ("skybridge_v0", "scala_v0"):
        row = report["envs"][env_id]
        engines = ["auto", "python"] if row["compiled"] else ["python"]
        for engine in engines:
            assert row["bytes_per_game"][engine] > 0
            for num_envs in ("1", "4"):
                cell = row[engine][num_envs]
                assert cell["decisions_per_s"] > 0 and cell["x_connect_four_v3"] > 0
                assert len(cell["x_connect_four_v3_rounds"]) == 2
                assert cell["draw_us_per_decision"] > 0 and cell["step_us_per_decision"] > 0   # where the time went
    assert "skybridge_v0" in capsys.readouterr().out


def test_training_throughput_reports_the_tutorial_and_each_config(tmp_path, capsys):
    """Tiny budgets: a rollout of 2,048 steps is the tutorial's least (MaskablePPO's default)."""
    out = tmp_path / "training.json"
    training_throughput.main(["--budgets", "64", "128", "--tutorial-budgets", "2048", "4096",
                              "--tutorial-threads", "1", "--json", str(out),
                              str(REPO_ROOT / "configs" / "skybridge.yaml"),
                              "--set", "train.n_envs=4", "ppo.n_steps=16", "ppo.batch_size=32"])
    runs = json.loads(out.read_text())["runs"]
    assert set(runs) == {training_throughput.tutorial_name(1), "skybridge.yaml"}
    assert runs[training_throughput.tutorial_name(1)]["x_tutorial"]["wall"] == 1.0
    row = runs["skybridge.yaml"]
    assert row["steps_per_s"]["wall"] > 0 and row["x_tutorial"]["wall"] > 0 and row["opponent_shares"]
    assert "skybridge.yaml" in capsys.readouterr().out


def test_search_speed_reports_each_agent_after_its_untimed_warmup(tmp_path, capsys):
    out = tmp_path / "speed.json"
    assert search_speed.main(["highrise_heist_v0", "--agents", "mcts@8", "pretrained@4", "--positions", "3",
                              "--warmup", "2", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert (report["positions"], report["warmup"]) == (3, 2)
    for row in report["envs"]["highrise_heist_v0"].values():
        assert row["positions"] == 3 and row["moves_per_cpu_s"] > 0 and row["moves_per_wall_s"] > 0
    assert "pretrained@4:" in capsys.readouterr().out


def test_search_speed_plays_the_options_it_is_given(tmp_path):
    """With ``--option`` the positions are of that configuration and ``pretrained`` is the
    network that plays it (Sky Scrapers' four seats: the network for every board)."""
    out = tmp_path / "speed.json"
    assert search_speed.main(["sky_scrapers_v0", "--agents", "pretrained@2", "--positions", "2", "--option", "players=4",
                              "--option", "board=square", "--option", "rows=7", "--option", "cols=7",
                              "--option", "positioning=random", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["options"] == {"players": 4, "board": "square", "rows": 7, "cols": 7, "positioning": "random"}
    assert report["envs"]["sky_scrapers_v0"]["pretrained@2"]["positions"] == 2


def test_playout_speed_times_both_kinds_of_playout_on_each_case(tmp_path, capsys):
    out = tmp_path / "playouts.json"
    assert playout_speed.main(["--case", "four seats 6x6", '{"players": 4, "board": "square", "rows": 6, "cols": 6, '
                               '"positioning": "random"}', "--games", "2", "--playouts", "3", "--rounds", "1",
                               "--json", str(out)]) == 0
    row = json.loads(out.read_text())["cases"]["four seats 6x6"]
    assert row["options"]["players"] == 4 and row["random_ms"] > 0 and row["greedy_ms"] > 0
    assert "four seats 6x6: random" in capsys.readouterr().out


@pytest.mark.parametrize("ask", ["root", "moves"])
def test_exact_budget_reports_every_distance_a_game_passes_through(tmp_path, capsys, ask):
    from benchmarks import exact_budget

    out = tmp_path / "budget.json"
    assert exact_budget.main(["--nodes", "3000", "--games", "1", "--opponent", "random", "--ask", ask,
                              "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["ask"] == ask
    rows = report["rows"]
    distances = sorted(map(int, rows), reverse=True)
    assert distances == list(range(distances[0], distances[-1] - 1, -1))   # every move joins two stacks
    farthest, nearest = rows[str(distances[0])], rows[str(distances[-1])]
    assert not farthest["solved"] and nearest["solved"] == nearest["positions"]
    assert "total" in capsys.readouterr().out
    with pytest.raises(SystemExit):   # no compiled solver: refused with the reason
        exact_budget.main(["--env", "scala_v0", "--games", "1"])
    assert "has no compiled solver" in capsys.readouterr().err
