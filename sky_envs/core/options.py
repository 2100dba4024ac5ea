"""Checks for game options: every bad option is a ``ValueError`` at construction.

One integer check for every integer option (``integer_option``: ``2.0``, ``True`` and
``"2"`` are refused, numpy integers accepted), one choice check, one message for unknown
option names. Every size and count has an upper bound, so that a configuration fails here
in microseconds instead of hanging or exhausting memory later; the shared bounds are below,
game-specific ones live with each game and are documented in its env module.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

#: the most turns (plies, decisions) any ``max_turns`` option may ask for
MAX_TURNS = 1_000_000
#: the longest side of a grid board: at most 64 x 64 = 4096 cells
MAX_SIDE = 64


def integer_option(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an ``int`` if it is an integer in ``low..high`` (inclusive).

    Python and numpy integers pass; ``bool``, floats (even ``2.0``), strings and anything
    else raise ``ValueError`` naming the option and the accepted range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        what = "a non-negative integer" if low == 0 else f"an integer >= {low}"
        raise ValueError(f"{name} must be {what} and <= {high}, got {value!r}")
    return int(value)


def choice_option(name: str, value: Any, allowed: Iterable) -> Any:
    """``value`` if it is one of ``allowed``, type included (``2.0`` is not ``2``, ``True`` not ``1``)."""
    allowed = list(allowed)
    plain = value.item() if isinstance(value, np.generic) else value  # np.int64(4) is 4, np.str_ a str
    if not any(type(plain) is type(a) and plain == a for a in allowed):
        raise ValueError(f"{name}={value!r} is not valid: expected one of {allowed}")
    return plain


def reject_unknown_options(env_id: str, unknown: dict[str, Any], valid: Iterable[str], hint: str = "") -> None:
    """``ValueError`` naming every option in ``unknown`` and listing the ``valid`` ones."""
    if unknown:
        names = ", ".join(repr(k) for k in sorted(unknown, key=str))
        plural = "s" if len(unknown) > 1 else ""
        raise ValueError(f"unknown option{plural} {names}: {env_id} takes {', '.join(valid)}{hint}")
