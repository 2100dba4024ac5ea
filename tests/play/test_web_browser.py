"""The play page in a real headless Chromium (Debian's ``chromium`` and ``chromium-driver``
packages, driven by Selenium), the second way to move: moves chosen from the list and typed,
an illegal move's error shown, undo, hint and new game, in every env and in hot-seat.

Skipped, saying so, where Chromium or its driver is not installed; ``.ci/run`` installs both.
"""

from __future__ import annotations

import pytest

from tests.play.play_page_support import NEEDS_CHROMIUM, Page
from tests.play.play_web_support import PLAY_ENV_IDS, call, illegal_move_text, play_move, running_server

pytestmark = NEEDS_CHROMIUM


def test_a_short_game_on_the_page(browser):
    with running_server("scala_v0", seed=3) as server:
        page = Page(browser, server)
        assert "player_0 (you) to move" in page.text("status")
        assert page.log() == [] and page.error() == ""
        page.by_id("notation-box").find_element("tag name", "summary").click()
        assert "e5-d4" in page.text("notation")      # the env docstring's notation section
        first = page.move_buttons()[0]
        first_text = first.text
        page.click(first)
        log = page.log()
        assert log[0] == f"player_0: {first_text}" and log[1].startswith("player_1:") and "(random)" in log[1]
        assert page.text("replies").startswith("Agent played: player_1")
        headers = [cell.text for cell in browser.find_elements("css selector", "#scores th")]
        assert headers == ["seat", "stones"]        # Scala's running count: stones left per seat
        stones = call(server, "GET", "/api/state")[1]["info"]["stones"]
        assert [row.text for row in browser.find_elements("css selector", "#scores tbody tr")] == [
            f"player_0 (you) {stones[0]}", f"player_1 (agent) {stones[1]}"]

        # the filter narrows the list; a typed move is played like a clicked one
        buttons = page.move_buttons()
        typed = buttons[-1].text
        page.by_id("filter").send_keys(typed)
        assert typed in [b.text for b in page.move_buttons()] and len(page.move_buttons()) <= len(buttons)
        page.by_id("filter").clear()
        page.type_move(typed)
        assert page.log()[2] == f"player_0: {typed}" and len(page.log()) == 4

        # mistyped and illegal moves: an error on the page, the game unchanged
        position = call(server, "GET", "/api/position")[1]["position"]
        version = page.version()
        page.type_move("xyzzy", expect_change=False)
        assert "xyzzy" in page.error()
        illegal = illegal_move_text("scala_v0", position)
        page.type_move(illegal, expect_change=False)
        assert "illegal" in page.error() and illegal in page.error()
        assert page.version() == version and len(page.log()) == 4
        assert call(server, "GET", "/api/position")[1]["position"] == position

        # a good move clears the error; hint, undo and new game
        page.click(page.move_buttons()[0])
        assert page.error() == "" and len(page.log()) == 6
        page.by_id("hint").click()
        page.wait.until(lambda d: d.find_element("id", "hint-text").text.startswith("Hint: "))
        hint = page.text("hint-text").removeprefix("Hint: ")
        assert hint in [b.text for b in page.move_buttons()]
        page.click(page.by_id("undo"))
        assert len(page.log()) == 4
        page.click(page.by_id("new-game"))
        assert page.log() == [] and "player_0 (you) to move" in page.text("status")

        # save the position text and load it back
        page.click(page.move_buttons()[0])
        page.by_id("position-box").find_element("tag name", "summary").click()
        page.wait.until(lambda d: d.find_element("id", "position").get_attribute("value").strip())
        saved = page.by_id("position").get_attribute("value")
        assert saved == call(server, "GET", "/api/position")[1]["position"]
        page.click(page.by_id("load"))
        assert page.log() == [] and page.error() == ""
        page.by_id("position").clear()
        page.by_id("position").send_keys("not a position")
        page.by_id("load").click()
        page.wait.until(lambda d: d.find_element("id", "error").is_displayed())
        assert "position not loaded" in page.error()


@pytest.mark.parametrize("env_id", PLAY_ENV_IDS)
def test_every_env_plays_on_the_page(browser, env_id):
    with running_server(env_id, seed=1) as server:
        page = Page(browser, server)
        # until the agents have answered twice (a turn may take the human several decisions)
        for _ in range(12):
            if sum(line.endswith("(random)") for line in page.log()) >= 2:
                break
            buttons = page.move_buttons()
            assert buttons and page.error() == ""
            text = buttons[len(buttons) // 2].text
            before = len(page.log())
            page.click(buttons[len(buttons) // 2])
            log = page.log()
            assert log[before] == f"player_0: {text}"
            state = call(server, "GET", "/api/state")[1]
            assert log == [f"player_{m['seat']}: {m['text']}" + ("" if m["by"] == "human" else f" ({m['by']})")
                           for m in state["moves"]]
            if state["is_over"]:
                break
        assert any(line.endswith("(random)") for line in page.log())   # the agents' moves are shown


def test_hot_seat_on_the_page(browser):
    with running_server("sky_scrapers_v0", {"players": 4}, human_seats=(0, 1, 2, 3), seed=2) as server:
        page = Page(browser, server)
        seats = []
        for _ in range(3):
            seats.append(page.text("status").split(" ")[0])
            assert "(human) to move" in page.text("status")
            page.click(page.move_buttons()[0])
        assert seats == ["player_0", "player_1", "player_2"] and len(page.log()) == 3
        assert page.text("replies") == ""


def test_a_finished_game_on_the_page(browser):
    with running_server("scala_v0", seed=4) as server:
        state = call(server, "GET", "/api/state")[1]
        while not state["is_over"]:      # played through the API: the page shows the end
            state = play_move(server, state["legal_moves"][0][0])[1]["state"]
        page = Page(browser, server)
        assert page.text("status").startswith("Game over.") and state["result"] in page.text("status")
        assert page.move_buttons() == [] and not page.by_id("hint").is_enabled()
        assert [cell.text for cell in browser.find_elements("css selector", "#scores th")][-1] == "final"
        finals = [row.find_elements("tag name", "td")[-1].text
                  for row in browser.find_elements("css selector", "#scores tbody tr")]
        assert [float(value) for value in finals] == state["scores"]
        assert len(page.log()) == len(state["moves"])
        page.click(page.by_id("undo"))       # undo reopens the game at the human's last decision
        assert "player_0 (you) to move" in page.text("status") and page.move_buttons()


def test_agents_that_open_the_game_move_on_the_page_one_by_one(browser):
    with running_server("golden_rush_v0", human_seats=(2,), seed=5) as server:
        page = Page(browser, server, query="?pace=50")      # a short pause before each agent move
        log = page.log()
        seats = [line.split(":")[0] for line in log]   # a Golden Rush turn may take several decisions
        assert seats[0] == "player_0" and set(seats) == {"player_0", "player_1"} and seats == sorted(seats)
        assert all(line.endswith("(random)") for line in log)
        assert len(log) == len(call(server, "GET", "/api/state")[1]["moves"])
        assert page.text("status") == "player_2 (you) to move"
        assert page.text("replies").startswith("Agent played: player_0")
        page.click(page.move_buttons()[0])
        assert page.log()[len(log)].startswith("player_2: ")
        for _ in range(6):      # player_2 may have more decisions this turn before player_3 moves
            if any(line.startswith("player_3: ") for line in page.log()):
                break
            page.click(page.move_buttons()[0])
        assert any(line.startswith("player_3: ") for line in page.log())


def test_the_rules_are_one_click_away(browser, tmp_path, monkeypatch):
    import sky_envs

    game = type(sky_envs.make_game("scala_v0"))
    (tmp_path / "summary.md").write_text("Move **towers** with `e5-d4`.\n")
    monkeypatch.setattr(game, "rules_summary_file", str(tmp_path / "summary.md"))
    with running_server("scala_v0", seed=3) as server:
        page = Page(browser, server)
        page.by_id("rules-box").find_element("tag name", "summary").click()
        assert page.text("rules") == "Move towers with e5-d4."
        assert "docs/envs/scala_v0.md" in page.text("docs-page")
