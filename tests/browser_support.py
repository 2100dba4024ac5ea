"""Headless Chromium for the browser tests (Debian's ``chromium`` and ``chromium-driver``
packages, driven by Selenium; ``.ci/run`` installs both): where they are, and a driver.

A test module marks itself ``pytestmark = NEEDS_CHROMIUM`` and takes a driver from
:func:`chromium_driver`; it is skipped, saying why, where either program is missing.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

NEEDS_CHROMIUM = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="no Chromium or chromedriver installed: apt-get install chromium chromium-driver",
)

#: no network use of its own (updates, sync, QUIC), no sandbox (containers), no GPU
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")


@contextlib.contextmanager
def chromium_driver(profile: Path, page_load_timeout_s: float = 20, extra_flags: tuple[str, ...] = ()):
    """A Selenium driver of headless Chromium with its profile in ``profile``, quit at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, *extra_flags, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(page_load_timeout_s)
        yield driver
    finally:
        driver.quit()
