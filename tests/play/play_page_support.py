"""The play page in headless Chromium for the browser tests (the browser: ``conftest.py``'s
session fixture): :class:`Page`, the page as a player sees and clicks it, waiting on the
page's own ``data-busy`` / ``data-version`` marks, never on timings."""

from __future__ import annotations

import random

from tests.browser_support import NEEDS_CHROMIUM

WAIT_S = 30
DESKTOP = (1280, 1000)
PHONE = (390, 844)

__all__ = ["NEEDS_CHROMIUM", "Page", "WAIT_S", "PHONE", "DESKTOP"]


class Page:
    """The play page as a player sees it."""

    def __init__(self, driver, server, query="?pace=0", size=DESKTOP):   # pace=0: no pause before agents' moves
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver = driver
        self.wait = WebDriverWait(driver, WAIT_S)
        driver.set_window_size(*size)
        driver.get(server.url + query)
        self.wait_idle()

    # ------------------------------------------------------------ reading
    def by_id(self, element_id):
        return self.driver.find_element("id", element_id)

    def text(self, element_id):
        return self.by_id(element_id).text

    def body(self, name):
        return self.driver.find_element("tag name", "body").get_attribute(f"data-{name}")

    def version(self):
        return int(self.body("version"))

    def wait_idle(self):
        self.wait.until(lambda d: self.body("busy") == "0" and int(self.body("version")) >= 0
                        and d.execute_script("return document.querySelector('#board svg, #library:not([hidden])') !== null"))

    def wait_changed(self, version):
        self.wait.until(lambda d: self.body("busy") == "0" and int(self.body("version")) != version)

    def move_buttons(self):
        return self.driver.find_elements("css selector", "#legal-moves button.move")

    def log(self):
        return [item.text for item in self.driver.find_elements("css selector", "#move-log li")]

    def error(self):
        box = self.by_id("error")
        return box.text if box.is_displayed() else ""

    def things(self, kind=None):
        """The ids of the board's things, or of those marked ``kind`` (origin, direct,
        selected, target, last)."""
        selector = "#board g.thing" + (f".{kind}" if kind else "")
        return self.driver.execute_script(
            f"return [...document.querySelectorAll('{selector}')].map(g => g.dataset.id)")

    def thing(self, thing_id):
        return self.driver.find_element("css selector", f'#board g.thing[data-id="{thing_id}"]')

    def choices(self):
        """The buttons of the open move choice ([] when it is closed)."""
        if self.by_id("choice").get_attribute("hidden") is not None:
            return []
        return self.driver.find_elements("css selector", "#choice button.choice")

    # ------------------------------------------------------------ acting
    def click(self, element):
        version = self.version()
        element.click()
        self.wait_changed(version)

    def click_thing(self, thing_id):
        """Click a board thing; returns once the page has answered (nothing to wait for
        when the click only selects, opens a choice or lets go)."""
        self.thing(thing_id).click()

    def type_move(self, text, expect_change=True):
        version = self.version()
        box = self.by_id("move-input")
        box.clear()
        box.send_keys(text + "\n")
        if expect_change:
            self.wait_changed(version)
        else:
            self.wait.until(lambda d: d.find_element("id", "error").is_displayed())
            self.wait_idle()

    def play_by_clicks(self, rng: random.Random, on_select=None):
        """One move chosen at random and played by clicks on the board only: a direct place,
        or an origin then one of its highlighted targets, then a choice when one opens.
        ``on_select(origin, targets)`` sees each selection. Returns the chosen move's text."""
        version = self.version()
        origins, direct = self.things("origin"), self.things("direct")
        assert origins or direct, "no clickable thing on the board while a human is to move"
        pick = rng.choice(origins + direct)
        self.click_thing(pick)
        if pick in origins:
            self.wait.until(lambda d: self.things("selected") == [pick])
            targets = self.things("target")
            assert targets, f"{pick} selected but no target is highlighted"
            if on_select is not None:
                on_select(pick, targets)
            self.click_thing(rng.choice(targets))
        self.wait.until(lambda d: self.version() != version or self.choices())
        if self.version() == version:
            button = rng.choice(self.choices())
            text = button.text.splitlines()[0]
            button.click()
        else:
            text = None
        self.wait_changed(version)
        return text
