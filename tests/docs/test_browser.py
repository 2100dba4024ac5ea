"""The built site in a real headless Chromium (Debian's ``chromium`` and ``chromium-driver``,
driven by Selenium, as tests/play/test_web_browser.py does): every picture on the landing
page and on an env page loads.

Skipped, saying so, where Chromium or its driver is not installed; ``.ci/run`` installs both.
"""

from __future__ import annotations

import pytest

import sky_envs
from tests.browser_support import NEEDS_CHROMIUM, chromium_driver

pytestmark = NEEDS_CHROMIUM

WAIT_S = 30

#: the pictures that have not loaded (not complete, or no width): their sources
UNLOADED_IMAGES = """return Array.from(document.images)
    .filter(image => !(image.complete && image.naturalWidth > 0)).map(image => image.src);"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium_driver(tmp_path_factory.mktemp("chromium-profile"), WAIT_S) as driver:
        yield driver


@pytest.mark.parametrize("page, at_least", [("index.html", 6), (f"envs/{sky_envs.BUILTIN_ENV_IDS[0]}.html", 5)])
def test_every_picture_loads(page, at_least, built_docs, browser):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    path = built_docs / page
    assert path.is_file(), page
    browser.get(path.as_uri())
    WebDriverWait(browser, WAIT_S).until(lambda driver: driver.execute_script("return document.readyState") == "complete")
    count = browser.execute_script("return document.images.length;")
    assert count >= at_least, f"{page} shows {count} pictures, expected at least {at_least}"
    try:
        WebDriverWait(browser, WAIT_S).until(lambda driver: not driver.execute_script(UNLOADED_IMAGES))
    except TimeoutException:
        pass
    assert browser.execute_script(UNLOADED_IMAGES) == [], f"pictures of {page} that did not load"
