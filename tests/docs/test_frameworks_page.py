"""The snippets of docs/guides/frameworks.md run as written, each with its framework, and
the env ids it documents make envs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests import REPO_ROOT
from tests.docs.docs_support import DOCS
from tests.project.snippet_support import (FRAMEWORK_MODULES, framework_snippets, python_blocks,
                                           run_framework_snippet, sections)

PAGE = DOCS / "guides" / "frameworks.md"
BY_ID = "Making an env by its id"


def test_every_framework_has_a_snippet():
    snippets = framework_snippets(PAGE.read_text(), level=2)
    assert set(snippets) == set(FRAMEWORK_MODULES) and all(snippets.values())


@pytest.mark.parametrize("name", sorted(FRAMEWORK_MODULES))
def test_framework_snippet_runs(name, tmp_path, monkeypatch):
    code = framework_snippets(PAGE.read_text(), level=2)[name]
    run_framework_snippet(name, code, f"docs/guides/frameworks.md ({name})", tmp_path, monkeypatch)


def by_id_blocks() -> list[str]:
    blocks = python_blocks(sections(PAGE.read_text(), level=2)[BY_ID])
    assert len(blocks) == 2, f"'{BY_ID}' should hold two snippets: after import sky_envs, and by id alone"
    return blocks


def test_ids_after_import_make_the_aec_env_and_the_single_agent_view():
    from sky_envs.core.env import SkyEnv
    from sky_envs.gym_env import SingleAgentEnv

    namespace = {"__name__": "docs_snippet"}
    exec(compile(by_id_blocks()[0], f"docs/guides/frameworks.md ({BY_ID})", "exec"), namespace)
    assert isinstance(namespace["aec_env"].unwrapped, SkyEnv)
    assert isinstance(namespace["single_agent_env"], SingleAgentEnv)


def test_module_id_form_works_in_a_program_that_never_imports_sky_envs(tmp_path):
    """A fresh interpreter that runs only the snippet: Gymnasium imports sky_envs itself."""
    program = "\n".join([
        "import sys",
        "assert 'sky_envs' not in sys.modules",
        by_id_blocks()[1],
        "print(type(env.unwrapped).__module__, type(env.unwrapped).__name__, observation.shape)",
    ])
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=environment,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[:2] == ["sky_envs.gym_env", "SingleAgentEnv"], done.stdout
