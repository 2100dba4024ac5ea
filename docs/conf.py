"""Sphinx configuration of the sky_envs documentation (furo theme, MyST markdown pages).

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (README.md's ``# docs:`` line).
Before the pages are read, ``_ext/generate.py`` writes what the pages pull in from the code
(each env module's docstring, the pictures of example positions), so the docs never hold
a copy of either.
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # the checkout's sky_envs and training, as the tests import them
sys.path.insert(0, str(DOCS / "_ext"))

import sky_envs  # noqa: E402

project = "sky_envs"
author = "the sky_envs developers"
copyright = "2026, the sky_envs developers"
release = version = sky_envs.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "generate",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["colon_fence", "deflist", "fieldlist"]
myst_heading_anchors = 3
exclude_patterns = ["_build", "_ext", "pictures/*.py", "envs/_docstrings"]
html_theme = "furo"
html_title = "sky_envs"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# Methods that override a framework's (Gymnasium's step, RLlib's reset) show their own
# docstring or none: the frameworks' docstrings are written for their own Sphinx setups
# (Google style, doctest directives) and describe the base class, not these envs.
autodoc_inherit_docstrings = False
