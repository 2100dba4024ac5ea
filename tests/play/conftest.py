"""One headless Chromium for every browser test of the session: starting one is the slow
part of a browser test on a small machine (tests/play/play_page_support.py drives it)."""

import pytest

from tests.browser_support import CHROMEDRIVER, CHROMIUM, chromium_driver
from tests.play.play_page_support import DESKTOP, WAIT_S


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("no Chromium or chromedriver installed: apt-get install chromium chromium-driver")
    with chromium_driver(tmp_path_factory.mktemp("chromium-profile"), WAIT_S) as driver:
        driver.set_window_size(*DESKTOP)
        yield driver
