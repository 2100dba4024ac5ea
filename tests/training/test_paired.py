"""``python -m training.paired``: two evaluations of two agents against one opponent compared
game for game, on real ``training.evaluate`` journals; journals of other games refused."""

import json
import math

import pytest

from training.evaluate import main as evaluate
from training.paired import compare, main, sign_test

SMALL = {"env": "sky_scrapers_v0", "options": {"board": "square", "rows": 4, "cols": 4}}


@pytest.fixture
def board_config(tmp_path):
    config = tmp_path / "small.yaml"
    config.write_text(json.dumps({"env": {"id": SMALL["env"], "options": SMALL["options"]}}))
    return str(config)


def play(config: str, agent: str, opponent: str, seed: int, out, stem: str) -> str:
    """An evaluation of ``agent`` against ``opponent`` (6 games); its journal's path."""
    evaluate(["--config", config, "--agents", agent, opponent, "--games", "6", "--seed", str(seed),
              "--out", str(out), "--stem", stem])
    return str(out / f"{stem}.games.jsonl")


def test_the_sign_test_is_the_exact_binomial_tail():
    assert sign_test(0, 4) == pytest.approx(2 / 16)
    assert sign_test(4, 0) == sign_test(0, 4)
    assert sign_test(3, 3) == 1.0 and sign_test(0, 0) == 1.0
    assert sign_test(2, 10) == pytest.approx(2 * sum(math.comb(12, k) for k in range(3)) / 2 ** 12)


def test_compare_pairs_the_games_both_hold():
    a = {0: 1.0, 1: -1.0, 2: 1.0, 3: 0.0, 9: 1.0}
    b = {0: 1.0, 1: 1.0, 2: -1.0, 3: -1.0}
    result = compare(a, b)
    assert result["games"] == 4                     # game 9 is in one journal only
    assert result["a"]["wins"] == 2 and result["a"]["draws"] == 1 and result["a"]["score"] == pytest.approx(2.5 / 4)
    assert (result["a_more"], result["b_more"]) == (2, 1)
    assert result["mean_difference"] == pytest.approx((0 - 1 + 1 + 0.5) / 4)
    low, high = result["difference_interval"]
    assert low < result["mean_difference"] < high
    with pytest.raises(ValueError, match="no game in common"):
        compare({0: 1.0}, {1: 1.0})


def test_two_agents_against_one_opponent_on_the_same_seed(board_config, tmp_path, capsys):
    first = play(board_config, "random", "mcts@8", 0, tmp_path, "random")
    second = play(board_config, "greedy", "mcts@8", 0, tmp_path, "greedy")
    assert main([first, second]) == 0
    out = capsys.readouterr().out
    assert "6 games in common against mcts@8 (sky_scrapers_v0, seed 0)" in out
    assert "random" in out and "greedy" in out and "sign test" in out
    assert main([first, second, "--opponent", "mcts@8"]) == 0
    again = play(board_config, "random", "mcts@8", 0, tmp_path, "random_again")
    capsys.readouterr()
    assert main([first, again]) == 0                # the same agent again: the same 6 games, game for game
    assert "scored more in 0, random (second) in 0, the same in 6" in capsys.readouterr().out


def test_journals_of_other_games_are_refused(board_config, tmp_path, capsys):
    first = play(board_config, "random", "mcts@8", 0, tmp_path, "seed0")
    other_seed = play(board_config, "greedy", "mcts@8", 100, tmp_path, "seed100")
    other_opponent = play(board_config, "greedy", "mcts@4", 0, tmp_path, "mcts4")
    assert main([first, other_seed]) == 2
    assert "differ in seed" in capsys.readouterr().err
    assert main([first, other_opponent]) == 2
    assert "the opponent (mcts@8 against mcts@4)" in capsys.readouterr().err
    assert main([first, first, "--opponent", "greedy"]) == 2
    assert "one pairing against 'greedy'" in capsys.readouterr().err
    round_robin = tmp_path / "all"
    evaluate(["--config", board_config, "--agents", "random", "greedy", "mcts@4", "--games", "2", "--out",
              str(round_robin)])
    assert main([str(round_robin / "evaluation.games.jsonl"), first]) == 2
    assert "or give --opponent" in capsys.readouterr().err
