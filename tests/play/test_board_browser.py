"""The board as the controller, in a real headless Chromium: games played by clicks on the
board only (no typed moves, no move buttons), the highlighted targets of every selection
equal to the legal moves from that origin, the choice where one click pair allows several
moves, agents watched to the end, a replay stepped back and forth, and a phone-sized window
where taps work like clicks.

The default run plays a short game and checks each feature once; whole games in every env
and board shape are marked slow. Skipped, saying so, where Chromium is not installed.
"""

from __future__ import annotations

import random

import pytest

from sky_envs.agents import make_agent
from sky_envs.core.registry import make_game
from sky_envs.core.replay_file import load_replay, positions
from tests.play.play_page_support import NEEDS_CHROMIUM, PHONE, Page
from tests.play.play_web_support import (BOARD_CONFIGS, call, config_id, expected_ways, replay_server,
                                         running_server)
from training.tournament import match

pytestmark = NEEDS_CHROMIUM

SMALL_BOARD = {"board": "square", "rows": 3, "cols": 4}


def targets_of(state, origin):
    """The targets the API gives for moves starting on ``origin``."""
    return {target for move in state["board_moves"] for o, target in move["ways"] if o == origin}


def play_by_clicks_to_the_end(page, server, seed, env_id, options, max_moves=2000):
    """Click random moves until the game ends, checking every selection's highlighted targets
    against the legal moves from that origin, as their notation reads; returns the number of
    moves clicked."""
    rng = random.Random(seed)
    clicked = 0
    game = make_game(env_id, **options)

    def check(origin, targets):
        state = call(server, "GET", "/api/state")[1]
        position = game.state_from_text(call(server, "GET", "/api/position")[1]["position"])
        from_notation = {t for _, text in state["legal_moves"] for o, t in expected_ways(env_id, position, text)
                         if o == origin}
        assert set(targets) == from_notation == targets_of(state, origin), origin

    while not call(server, "GET", "/api/state")[1]["is_over"]:
        assert clicked < max_moves
        before = len(page.log())
        page.play_by_clicks(rng, on_select=check)
        assert page.error() == "" and len(page.log()) > before
        clicked += 1
    return clicked


def test_a_whole_game_by_clicks_on_the_board(browser):
    with running_server("sky_scrapers_v0", SMALL_BOARD, seed=2) as server:
        page = Page(browser, server)
        state = call(server, "GET", "/api/state")[1]
        origins = page.things("origin")
        assert set(origins) == {o for m in state["board_moves"] for o, _ in m["ways"]}
        assert page.things("direct") == []
        # a selection shows its targets; a click on it again lets go
        page.click_thing(origins[0])
        page.wait.until(lambda d: page.things("selected") == [origins[0]])
        assert set(page.things("target")) == targets_of(state, origins[0])
        page.click_thing(origins[0])
        page.wait.until(lambda d: page.things("selected") == [] and page.things("target") == [])
        assert play_by_clicks_to_the_end(page, server, 1, "sky_scrapers_v0", SMALL_BOARD) > 0
        state = call(server, "GET", "/api/state")[1]
        assert page.text("status").startswith("Game over.")
        assert page.by_id("result-box").is_displayed()
        assert page.text("result-words") == state["result_words"] and "sky scrapers" in state["result_words"].lower()
        assert page.log() == [f"player_{m['seat']}: {m['text']}" + ("" if m["by"] == "human" else f" ({m['by']})")
                              for m in state["moves"]]
        assert sorted(page.things("last")) == sorted(state["last_move_ids"])


def test_a_choice_opens_where_one_click_pair_allows_several_moves(browser):
    with running_server("highrise_heist_v0", seed=3) as server:
        page = Page(browser, server)
        rng = random.Random(0)
        for _ in range(8):     # past the opening's one-block placement, into a full placement
            state = call(server, "GET", "/api/state")[1]
            if "supply" in page.things("origin") and state["info"]["turn"] >= 2:
                break
            page.play_by_clicks(rng)
        assert "supply" in page.things("origin")
        page.click_thing("supply")
        page.wait.until(lambda d: page.things("selected") == ["supply"])
        target = sorted(page.things("target"))[0]
        stand = target.split(":")[1]
        page.click_thing(target)
        page.wait.until(lambda d: page.choices())
        texts = sorted(button.text.splitlines()[0] for button in page.choices())
        expected = sorted(m["text"] for m in state["board_moves"] if ["supply", target] in m["ways"])
        assert texts == expected and f"+{stand}" in texts and len(texts) > 1
        page.by_id("choice-cancel").click()
        assert page.choices() == []
        page.click_thing("supply")
        page.click_thing(target)
        page.wait.until(lambda d: page.choices())
        button = next(b for b in page.choices() if b.text.splitlines()[0] == f"+{stand}{stand}")
        page.click(button)
        assert f"player_0: +{stand}{stand}" in page.log()


def test_agents_watched_to_the_end_with_pause_and_step(browser):
    with running_server("sky_scrapers_v0", SMALL_BOARD, opponent=["random", "greedy"], human_seats=(),
                        seed=4) as server:
        page = Page(browser, server, query="?pace=400")
        assert page.body("mode") == "watch" and page.by_id("watch-controls").is_displayed()
        assert not page.by_id("play-panel").is_displayed()
        page.by_id("pause").click()
        page.wait.until(lambda d: page.by_id("pause").text == "Play" and page.body("busy") == "0")
        paused_at = len(call(server, "GET", "/api/state")[1]["moves"])
        page.click(page.by_id("step"))
        assert len(call(server, "GET", "/api/state")[1]["moves"]) == paused_at + 1
        from selenium.webdriver.support.ui import Select

        Select(page.by_id("speed")).select_by_value("0")
        page.by_id("pause").click()
        page.wait.until(lambda d: page.by_id("result-box").is_displayed())
        state = call(server, "GET", "/api/state")[1]
        assert state["is_over"] and page.text("result-words") == state["result_words"]
        assert len(page.log()) == len(state["moves"])
        assert page.log()[-1].endswith(f"({state['moves'][-1]['by']})")


def test_a_registered_game_without_a_board_view_plays_by_clicks(browser):
    import sky_envs
    from tests.tiny_game import NimGame

    sky_envs.register("tiny_nim_v0", NimGame, overwrite=True)
    with running_server("tiny_nim_v0", {"heap": 7}, seed=1) as server:
        page = Page(browser, server)
        rng = random.Random(2)
        while not call(server, "GET", "/api/state")[1]["is_over"]:
            state = call(server, "GET", "/api/state")[1]
            assert sorted(page.things("direct")) == sorted(f"action:{a}" for a, _ in state["legal_moves"])
            page.play_by_clicks(rng)
        assert page.text("status").startswith("Game over.") and page.by_id("result-box").is_displayed()


@pytest.fixture(scope="module")
def two_games(tmp_path_factory):
    folder = tmp_path_factory.mktemp("games")
    match("scala_v0", {}, ("greedy", make_agent("greedy")), ("random", make_agent("random")), games=2, seed=1,
          save_games=folder)
    return folder


def test_a_replay_stepped_back_and_forth(browser, two_games):
    with replay_server(two_games) as server:
        page = Page(browser, server)
        assert page.body("mode") == "replays"
        buttons = browser.find_elements("css selector", "#games button.open-game")
        assert [b.text for b in buttons] == sorted(p.name for p in two_games.glob("*.json"))
        name = buttons[0].text
        expected = [state.to_text() for state, _ in positions(load_replay(two_games / name))]
        buttons[0].click()
        page.wait.until(lambda d: page.body("mode") == "replay" and page.body("busy") == "0")

        def shown():
            page.wait_idle()
            return int(page.body("version")), page.by_id("position").get_attribute("value")

        assert shown() == (0, expected[0])
        for button, index in (("forward", 1), ("forward", 2), ("back", 1), ("last", len(expected) - 1),
                              ("back", len(expected) - 2), ("first", 0)):
            version = page.version()
            page.by_id(button).click()
            page.wait_changed(version)
            assert shown() == (index, expected[index]), button
            assert bool(page.things("last")) == (index > 0)
        browser.execute_script("const s = document.getElementById('slider'); s.value = '5';"
                               "s.dispatchEvent(new Event('input'));")
        page.wait_changed(0)
        assert shown() == (5, expected[5])
        assert "Move 5 of" in page.text("status")
        page.by_id("last").click()
        page.wait.until(lambda d: page.by_id("result-box").is_displayed())
        page.by_id("to-library").click()
        page.wait.until(lambda d: page.by_id("library").is_displayed())


def test_a_phone_sized_window_scales_the_board_and_taps_play(browser):
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.interaction import POINTER_TOUCH
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    with running_server("scala_v0", seed=5) as server:
        page = Page(browser, server, size=PHONE)
        try:
            width = browser.execute_script("return window.innerWidth")
            board = browser.execute_script("const r = document.querySelector('#board svg').getBoundingClientRect();"
                                           "return [r.left, r.right, r.width];")
            assert 0 <= board[0] and board[1] <= width and board[2] > width * 0.8
            assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")

            def tap(element):
                browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
                actions = ActionBuilder(browser, mouse=PointerInput(POINTER_TOUCH, "finger"))
                actions.pointer_action.move_to(element).pointer_down().pointer_up()
                actions.perform()

            state = call(server, "GET", "/api/state")[1]
            origin = page.things("origin")[0]
            tap(page.thing(origin))
            page.wait.until(lambda d: page.things("selected") == [origin])
            assert set(page.things("target")) == targets_of(state, origin)
            target = page.things("target")[0]
            version = page.version()
            tap(page.thing(target))
            page.wait_changed(version)
            assert page.log()[0] == f"player_0: {origin}-{target}"
        finally:
            from tests.play.play_page_support import DESKTOP

            browser.set_window_size(*DESKTOP)


@pytest.mark.slow
@pytest.mark.parametrize("config", BOARD_CONFIGS, ids=config_id)
def test_whole_games_by_clicks_in_every_env(browser, config):
    env_id, options = config
    with running_server(env_id, options, seed=7) as server:
        page = Page(browser, server)
        assert play_by_clicks_to_the_end(page, server, 3, env_id, options) > 0
        state = call(server, "GET", "/api/state")[1]
        assert page.text("result-words") == (state["result_words"] or state["result"])
