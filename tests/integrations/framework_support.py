"""Importing the RL frameworks of the ``sky_envs[frameworks]`` extra in tests.

Without the extra their tests are skipped; under CI (``CI`` set, where ``.ci/run`` installs
the extra) a missing framework is an error, so that no framework test is skipped unseen.
"""

from __future__ import annotations

import importlib
import os

import pytest


def framework(module: str):
    """``module`` imported, or the test skipped (an ImportError under CI)."""
    if os.environ.get("CI"):
        return importlib.import_module(module)
    return pytest.importorskip(module, reason=f"{module} is not installed: pip install -e '.[frameworks]'")
