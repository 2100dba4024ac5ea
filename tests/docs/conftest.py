"""The docs site, built once per test session (the README's build command, into a temp folder)."""

import importlib.util

import pytest

from tests.docs.docs_support import build_docs

#: what the build needs: the ``docs`` extra, which the ``dev`` extra includes
DOCS_EXTRA = ("sphinx", "furo", "myst_parser")


@pytest.fixture(scope="session")
def built_docs(tmp_path_factory):
    """The folder of the built HTML site; the build fails the tests that need it on any warning."""
    missing = [name for name in DOCS_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        pytest.fail(f"the docs build needs {', '.join(missing)}: pip install -e '.[docs]' (part of '.[dev]')")
    out = tmp_path_factory.mktemp("docs-html")
    done = build_docs(out)
    assert done.returncode == 0, f"the docs build failed (warnings are errors):\n{done.stderr[-6000:]}"
    return out
