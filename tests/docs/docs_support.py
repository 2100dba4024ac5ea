"""Building the docs site and reading its HTML: shared by the docs tests."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests import REPO_ROOT

DOCS = REPO_ROOT / "docs"
BUILD_TIMEOUT_S = 600


def build_docs(out: Path) -> subprocess.CompletedProcess:
    """``python -m sphinx -W -b html docs OUT``: the README's docs build, warnings as errors."""
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(DOCS), str(out)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)


class PageParser(HTMLParser):
    """The links (``href``), image sources (``src`` of ``<img>``) and heading texts of a page."""

    HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.images: list[str] = []
        self.headings: list[str] = []
        self._heading: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if values.get("href") is not None and tag in ("a", "link"):
            self.hrefs.append(values["href"])
        if tag == "img" and values.get("src") is not None:
            self.images.append(values["src"])
        if tag in self.HEADINGS:
            self._heading = []

    def handle_endtag(self, tag):
        if tag in self.HEADINGS and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None

    def handle_data(self, data):
        if self._heading is not None:
            self._heading.append(data)


def parse_page(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def local_target(page: Path, reference: str) -> Path | None:
    """The file a link or image source of ``page`` points to inside the site, or None for
    one that leaves it (another scheme, a host) or stays on the page (``#fragment``)."""
    parts = urlsplit(reference)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    target = (page.parent / unquote(parts.path)).resolve()
    return target / "index.html" if parts.path.endswith("/") else target
