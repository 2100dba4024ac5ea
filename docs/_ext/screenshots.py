"""Screenshots of the play page for ``docs/guides/play_and_watch.md``, taken in headless
Chromium and committed as small PNGs in ``docs/screenshots/`` (the docs build does not
need a browser). Run it again after changing the page or a game's board view:

    python docs/_ext/screenshots.py            # from the repository root

It needs what the browser tests need: Debian's ``chromium`` and ``chromium-driver`` and
``selenium``. Each game is set up from a fixed seed, a few moves are played through the API,
and a piece is selected by a click so that its legal targets show.
"""

from __future__ import annotations

import io
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "screenshots"
sys.path.insert(0, str(ROOT))

#: picture name -> (env id, options, human moves played before the picture)
GAMES = {
    "sky_scrapers_v0": ("sky_scrapers_v0", {}, 6),
    "sky_scrapers_hex": ("sky_scrapers_v0", {"lines": "hex", "board": "random", "rows": 7, "cols": 7,
                                             "positioning": "random"}, 5),
    "scala_v0": ("scala_v0", {}, 5),
    "highrise_heist_v0": ("highrise_heist_v0", {}, 14),
    "golden_rush_v0": ("golden_rush_v0", {}, 10),
    "skybridge_v0": ("skybridge_v0", {}, 5),
    "sky_towers_v0": ("sky_towers_v0", {}, 12),
}


def small_png(png: bytes, width: int | None = None) -> bytes:
    """A screenshot quantised to 96 colours (and scaled to ``width``): a few tens of KB."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    if width and image.width > width:
        image = image.resize((width, round(image.height * width / image.width)), Image.LANCZOS)
    out = io.BytesIO()
    image.quantize(colors=96, dither=Image.Dither.NONE).save(out, format="PNG", optimize=True)
    return out.getvalue()


def advance(server, call, moves: int, rng: random.Random) -> None:
    """``moves`` random human moves, each followed by the agents' answers, through the API."""
    state = call(server, "GET", "/api/state")[1]
    for _ in range(moves):
        while state["agent_to_move"]:
            state = call(server, "POST", "/api/advance", {})[1]["state"]
        if state["is_over"]:
            return
        state = call(server, "POST", "/api/move", {"move": rng.choice(state["legal_moves"])[0]})[1]["state"]
    while state["agent_to_move"]:
        state = call(server, "POST", "/api/advance", {})[1]["state"]


def main() -> int:
    from tests.browser_support import chromium_driver
    from tests.play.play_page_support import PHONE, Page
    from tests.play.play_web_support import call, replay_server, running_server

    OUT.mkdir(exist_ok=True)
    with chromium_driver(Path(tempfile.mkdtemp(prefix="screenshots-"))) as driver:
        for name, (env_id, options, moves) in GAMES.items():
            with running_server(env_id, options, seed=3) as server:
                advance(server, call, moves, random.Random(1))
                page = Page(driver, server, size=(1100, 900))
                origins = page.things("origin")
                if origins:
                    page.click_thing(origins[len(origins) // 2])
                shot = driver.find_element("id", "board-section").screenshot_as_png
                (OUT / f"{name}.png").write_bytes(small_png(shot, 760))
        with running_server("golden_rush_v0", {}, opponent=["greedy", "random", "mcts@20", "random"], human_seats=(),
                            seed=2) as server:
            for _ in range(40):
                call(server, "POST", "/api/advance", {})
            page = Page(driver, server, query="?pace=100000", size=(1100, 900))
            driver.execute_script("window.scrollTo(0, 0)")
            shot = driver.find_element("tag name", "body").screenshot_as_png
            (OUT / "watch.png").write_bytes(small_png(shot, 760))
        with replay_server(ROOT / "docs" / "replays" / "scala_v0.json") as server:
            page = Page(driver, server, size=(1100, 900))
            for _ in range(12):
                version = page.version()
                page.by_id("forward").click()
                page.wait_changed(version)
            driver.execute_script("window.scrollTo(0, 0)")
            shot = driver.find_element("tag name", "body").screenshot_as_png
            (OUT / "replay.png").write_bytes(small_png(shot, 760))
        with running_server("sky_scrapers_v0", {}, seed=3) as server:
            page = Page(driver, server, size=PHONE)
            page.click_thing(page.things("origin")[4])
            shot = driver.get_screenshot_as_png()
            (OUT / "phone.png").write_bytes(small_png(shot))
    for path in sorted(OUT.glob("*.png")):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
