"""The test suite, laid out by area: core, games/<game>, agents, training, play, integrations, project."""

from pathlib import Path

#: the repository's root folder (the checkout the tests run in)
REPO_ROOT = Path(__file__).resolve().parent.parent
