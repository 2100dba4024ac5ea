"""What a training run keeps on disk, written so that no signal or crash leaves it half-done.

Every file is written to a temp file beside it and renamed into place (atomic on POSIX);
a run killed during a write (SIGKILL, power loss) leaves at most a temp file, which
:func:`remove_leftovers` deletes when the run is resumed. Paths inside ``run_state.json``
are relative to the run folder, so a run can be moved or resumed from any directory.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

MODEL = "model_latest.zip"
STATE = "run_state.json"
CHECKPOINTS = "checkpoints"

# temp files of atomic writes: ours ("<name>.<random>.tmp"), save_checkpoint's
# ("<name><random>.tmp") and those of earlier versions ("model_latest<random>.zip")
_LEFTOVER = re.compile(r"^(model_latest\.zip\..+\.tmp|run_state\.json.+\.tmp|(step_\d+|iter_\d+|final|policy)\.pt.+\.tmp"
                       r"|model_latest(?!\.zip$).+\.zip)$")


def atomic_write(path: Path, write: Callable[[IO[bytes]], None]) -> Path:
    """Write ``path`` through ``write(handle)`` into a temp file, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def remove_leftovers(run_dir: Path) -> list[Path]:
    """Delete the temp files that an interrupted write left in the run folder; returns them."""
    removed = []
    for folder in (run_dir, run_dir / CHECKPOINTS):
        if folder.is_dir():
            for path in folder.iterdir():
                if path.is_file() and _LEFTOVER.match(path.name):
                    path.unlink()
                    removed.append(path)
    return removed


def write_state(run_dir: Path, state: dict, pool_paths: list[str]) -> None:
    """``run_state.json``: ``state`` plus the opponent pool's checkpoints, relative to ``run_dir``."""
    pool = [os.path.relpath(path, run_dir) for path in pool_paths]
    text = json.dumps({**state, "pool": pool}, indent=2)
    atomic_write(run_dir / STATE, lambda handle: handle.write(text.encode()))


def read_state(run_dir: Path) -> dict:
    """``run_state.json`` with its pool paths made usable from the current directory."""
    path = run_dir / STATE
    if not path.is_file() or not (run_dir / MODEL).is_file():
        raise ValueError(f"cannot resume: {str(run_dir)!r} holds no {STATE} and {MODEL} "
                         "(a run writes them at its first checkpoint or when it is interrupted)")
    state = json.loads(path.read_text())
    state["pool"] = [str(run_dir / stored) for stored in state.get("pool", [])]
    missing = [stored for stored in state["pool"] if not Path(stored).is_file()]
    if missing:
        raise ValueError(f"cannot resume: the opponent pool's checkpoints {missing} are missing from {str(run_dir)!r}")
    return state
