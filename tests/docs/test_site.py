"""The built site: every env has its page with rules, pictures and its replay, and every
internal link and image resolves to a file of the site."""

from __future__ import annotations

import pytest

import sky_envs
from tests.docs.docs_support import DOCS, local_target, parse_page


def test_the_build_has_the_landing_page_and_every_section(built_docs):
    for page in ("index", "getting_started", "envs/index", "guides/index", "api/index", "notes/index"):
        assert (built_docs / f"{page}.html").is_file(), page


@pytest.mark.parametrize("env_id", sky_envs.BUILTIN_ENV_IDS)
def test_env_page_has_rules_pictures_and_replay(env_id, built_docs):
    assert (DOCS / "envs" / f"{env_id}.md").is_file(), f"docs/envs/{env_id}.md is missing"
    page = parse_page(built_docs / "envs" / f"{env_id}.html")
    assert any("Rules" in heading for heading in page.headings), \
        f"no heading with 'Rules' on {env_id}'s page: {page.headings}"
    pictures = [src for src in page.images if src.lower().endswith(".png")]
    assert len(pictures) >= 4, f"{env_id}'s page shows {len(pictures)} pictures, expected at least 4"
    assert any(src.rsplit("/", 1)[-1] == f"{env_id}.gif" for src in page.images), \
        f"{env_id}'s page does not show docs/replays/{env_id}.gif: {page.images}"


def test_every_internal_link_and_image_resolves(built_docs):
    pages = sorted(built_docs.rglob("*.html"))
    assert len(pages) > 10
    broken = []
    for path in pages:
        page = parse_page(path)
        for kind, references in (("href", page.hrefs), ("src", page.images)):
            for reference in references:
                target = local_target(path, reference)
                if target is not None and not target.is_file():
                    broken.append(f"{path.relative_to(built_docs)}: {kind}={reference!r}")
    assert not broken, "links or images that point to no file:\n" + "\n".join(broken)
