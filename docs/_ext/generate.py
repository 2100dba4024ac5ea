"""What the docs pull in from the code, written at every build before the pages are read.

* ``envs/_docstrings/<env_id>.md``: the env module's docstring (options, action layout,
  observation channels, rewards, position text, ...), included by the env's page with
  MyST's ``{include}`` so that the docstring stays the one source.
* ``envs/pictures/<env_id>/<name>.png``: the pictures of example positions that
  ``docs/pictures/<env_id>.py`` defines (its ``pictures()`` returns ``{name: RGB array}``).
* ``guides/_generated/<env_id>.recipe.inc`` and ``<env_id>.ladder.inc``: each shipped agent's
  recipe, rendered from ``configs/recipes/<env_id>/recipe.yaml``, and its game's ladder, from
  ``checkpoints/<env_id>/ladder.json``; ``guides/shipped_agents.md`` includes both (``.inc``:
  not pages of their own).

The three folders are build outputs (ignored by git).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np
from PIL import Image

DOCS = Path(__file__).resolve().parent.parent


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:  # unchanged files keep their time: no rebuild
        path.write_text(text)


def write_docstrings(out: Path) -> None:
    import sky_envs

    out.mkdir(parents=True, exist_ok=True)
    for env_id in sky_envs.BUILTIN_ENV_IDS:
        module = importlib.import_module(f"sky_envs.{env_id}")
        write_if_changed(out / f"{env_id}.md", (module.__doc__ or "").strip() + "\n")


def agent_includes(checkpoints: Path) -> dict[str, str]:
    """``{file name: text}`` of the recipe and ladder includes of every shipped agent."""
    from sky_envs.agents.checkpoint import read_checkpoint
    from training.ladder import ladder_markdown, no_ladder_markdown, other_network_markdown, rated_networks
    from training.recipe_file import load_recipe, recipe_markdown

    texts = {}
    for policy in sorted(checkpoints.glob("*/policy.pt")):
        env_id = policy.parent.name
        texts[f"{env_id}.recipe.inc"] = recipe_markdown(load_recipe(env_id))
        ladder = policy.parent / "ladder.json"
        if ladder.is_file():
            shipped = read_checkpoint(policy)[0]["sha256"]
            texts[f"{env_id}.ladder.inc"] = (
                ladder_markdown(json.loads(ladder.read_text()), f"../../checkpoints/{env_id}/ladder.png")
                + other_network_markdown(rated_networks(policy.parent / "ladder.games.jsonl"), shipped))
        else:
            texts[f"{env_id}.ladder.inc"] = no_ladder_markdown(env_id)
    return texts


def write_agent_includes(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, text in agent_includes(DOCS.parent / "checkpoints").items():
        write_if_changed(out / name, text)


def write_pictures(sources: Path, out: Path) -> None:
    if str(sources) not in sys.path:
        sys.path.insert(0, str(sources))  # the picture modules import their shared _helpers
    for source in sorted(sources.glob("*.py")):
        if source.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"docs_pictures_{source.stem}", source)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        folder = out / source.stem
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for name, image in module.pictures().items():
            array = np.asarray(image)
            if array.dtype != np.uint8 or array.ndim != 3 or array.shape[2] != 3:
                raise ValueError(f"{source}: picture {name!r} is not an RGB uint8 array (H, W, 3)")
            Image.fromarray(array).save(folder / f"{name}.png")


def generate(app) -> None:
    write_docstrings(DOCS / "envs" / "_docstrings")
    write_pictures(DOCS / "pictures", DOCS / "envs" / "pictures")
    write_agent_includes(DOCS / "guides" / "_generated")


def setup(app):
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
