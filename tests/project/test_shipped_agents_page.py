"""docs/guides/shipped_agents.md shows every shipped report as it is: each pairing's wins, draws,
losses, score and interval, the command that made the report, the recipe (rendered from its
file) and the picture."""

import json
import re

import pytest

from tests import REPO_ROOT
from training.recipe_file import load_recipe, recipe_markdown

PAGE = REPO_ROOT / "docs" / "guides" / "shipped_agents.md"
CHECKPOINTS = REPO_ROOT / "checkpoints"
SHIPPED = sorted(path.parent.name for path in CHECKPOINTS.glob("*/policy.pt"))
#: config paths the reports' recorded commands name, and where those files are today
MOVED_CONFIGS = {"configs/scala_finetune.yaml": "configs/recipes/scala_v0/2_finetune_vs_greedy.yaml",
                 "configs/sky_scrapers_moves3s.yaml": "configs/recipes/sky_scrapers_v0/3_symmetries.yaml"}


def env_section(env_id: str) -> str:
    text = PAGE.read_text()
    (start,) = [m.end() for m in re.finditer(rf"^## .*\(`{env_id}`\)\n", text, flags=re.M)]
    return text[start:].split("\n## ", 1)[0]


def report_tables(section: str) -> dict[str, str]:
    """``{report file name: its part of the env's section}``."""
    parts = re.split(r"^`checkpoints/\w+/(report[\w.]*\.json)`:\n", section, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.mark.parametrize("env_id", SHIPPED)
def test_the_page_shows_every_report_of_the_env(env_id):
    section = env_section(env_id)
    tables = report_tables(section)
    reports = sorted(path.name for path in (CHECKPOINTS / env_id).glob("report*.json"))
    assert sorted(tables) == reports
    for name, table in tables.items():
        report = json.loads((CHECKPOINTS / env_id / name).read_text())
        for p in report["pairings"]:
            low, high = p["ci95"]
            row = (f"| {p['a']} vs {p['b']} | {p['wins']} | {p['draws']} | {p['losses']} | {p['score']:.3f} "
                   f"| [{low:.2f}, {high:.2f}] |")
            assert row in table, (name, row)
        command = report["command"]
        for old, new in MOVED_CONFIGS.items():
            command = command.replace(old, new)
        command = re.sub(r"--out \S+", "--out reports/", command)
        assert f"```bash\n{command}\n```" in table, name
        config = command.split("--config ", 1)[1].split()[0]
        assert (REPO_ROOT / config).is_file(), config


@pytest.mark.parametrize("env_id", SHIPPED)
def test_the_page_shows_the_report_picture_and_names_the_recipe(env_id):
    section = env_section(env_id)
    assert f"](../../checkpoints/{env_id}/report.png)" in section
    assert (CHECKPOINTS / env_id / "report.png").is_file()
    assert f"```{{include}} _generated/{env_id}.recipe.inc\n```" in section   # rendered from the recipe file
    rendered = recipe_markdown(load_recipe(env_id))
    for stage in (REPO_ROOT / "configs" / "recipes" / env_id).glob("*.yaml"):
        assert f"configs/recipes/{env_id}/{stage.name}" in rendered, stage.name
