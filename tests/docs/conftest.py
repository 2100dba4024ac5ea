"""The docs site, built once per test session (the README's build command, into a temp folder)."""

import pytest

from tests.docs.docs_support import build_docs


@pytest.fixture(scope="session")
def built_docs(tmp_path_factory):
    """The folder of the built HTML site; the build fails the tests that need it on any warning."""
    out = tmp_path_factory.mktemp("docs-html")
    done = build_docs(out)
    assert done.returncode == 0, f"the docs build failed (warnings are errors):\n{done.stderr[-6000:]}"
    return out
