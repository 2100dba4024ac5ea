"""What the docs pull in from the code, written at every build before the pages are read.

* ``envs/_docstrings/<env_id>.md``: the env module's docstring (options, action layout,
  observation channels, rewards, position text, ...), included by the env's page with
  MyST's ``{include}`` so that the docstring stays the one source.
* ``envs/pictures/<env_id>/<name>.png``: the pictures of example positions that
  ``docs/pictures/<env_id>.py`` defines (its ``pictures()`` returns ``{name: RGB array}``).

Both folders are build outputs (ignored by git).
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
from PIL import Image

DOCS = Path(__file__).resolve().parent.parent


def write_docstrings(out: Path) -> None:
    import sky_envs

    out.mkdir(parents=True, exist_ok=True)
    for env_id in sky_envs.BUILTIN_ENV_IDS:
        module = importlib.import_module(f"sky_envs.{env_id}")
        text = (module.__doc__ or "").strip() + "\n"
        path = out / f"{env_id}.md"
        if not path.exists() or path.read_text() != text:  # unchanged files keep their time: no rebuild
            path.write_text(text)


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


def setup(app):
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
