"""The play page's rules: GET /api/state carries the rules summary as plain text and the docs page."""

from __future__ import annotations

import sky_envs
from tests.play.play_web_support import call, running_server


def test_state_carries_the_rules_summary(tmp_path, monkeypatch):
    game = type(sky_envs.make_game("scala_v0"))
    (tmp_path / "summary.md").write_text("Move **towers** with `e5-d4`.\n")
    monkeypatch.setattr(game, "rules_summary_file", str(tmp_path / "summary.md"))
    with running_server("scala_v0") as server:
        status, state, _ = call(server, "GET", "/api/state")
    assert status == 200
    assert state["rules"] == "Move towers with e5-d4." and state["docs_page"] == "docs/envs/scala_v0.md"


def test_a_game_without_a_summary_has_empty_rules(tmp_path, monkeypatch):
    game = type(sky_envs.make_game("scala_v0"))
    monkeypatch.setattr(game, "rules_summary_file", str(tmp_path / "missing.md"))
    with running_server("scala_v0") as server:
        status, state, _ = call(server, "GET", "/api/state")
    assert status == 200 and state["rules"] == ""
