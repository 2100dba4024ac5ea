"""Game.rules_summary() and the terminal's help: the rules in plain text, the docs page named."""

import pytest

import sky_envs
from sky_envs.games.highrise_heist import GoldenRushGame, HighriseHeistGame
from sky_envs.play.session import PlaySession
from sky_envs.play.terminal import plain_text, run_terminal
from tests.tiny_game import NimGame

SUMMARY = "Take **one to three** stones.\n\n- The player who takes the `last` stone wins.\n"


def test_rules_summary_reads_the_file(tmp_path, monkeypatch):
    (tmp_path / "summary.md").write_text(SUMMARY)
    monkeypatch.setattr(NimGame, "rules_summary_file", str(tmp_path / "summary.md"))  # absolute: used as it is
    assert NimGame().rules_summary() == SUMMARY


def test_missing_rules_summary_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match="has no rules summary: expected .*rules_summary.md"):
        NimGame().rules_summary()


def test_golden_rush_has_its_own_file():
    assert GoldenRushGame.rules_summary_file == "rules_summary_golden_rush.md"
    assert HighriseHeistGame.rules_summary_file == "rules_summary.md"


def test_plain_text_drops_markdown_marks():
    assert plain_text("## Rules\n" + SUMMARY) == ("Rules\nTake one to three stones.\n\n"
                                                  "- The player who takes the last stone wins.")


def test_terminal_help_prints_the_rules_and_the_docs_page(tmp_path, monkeypatch):
    game = type(sky_envs.make_game("scala_v0"))
    (tmp_path / "summary.md").write_text("Move **towers** with `e5-d4`.\n")
    monkeypatch.setattr(game, "rules_summary_file", str(tmp_path / "summary.md"))
    lines = iter(["help", "quit"])
    out = []
    run_terminal(PlaySession("scala_v0", {}, "random", [0], 0), read=lambda prompt: next(lines), write=out.append)
    text = "\n".join(out)
    assert "Move towers with e5-d4." in text and "docs/envs/scala_v0.md" in text
    help_text = next(chunk for chunk in out if "Commands:" in chunk)
    assert "**" not in help_text and "`" not in help_text
