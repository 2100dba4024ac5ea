"""Helpers for reading position texts: every error names the line and says what is expected."""

from __future__ import annotations

import re
from dataclasses import dataclass

_INTEGER = re.compile(r"[+-]?[0-9]+")


@dataclass
class PositionLines:
    """A position text split into board rows and ``key: value`` fields, with line numbers."""

    rows: list[tuple[int, str]]
    fields: dict[str, tuple[int, str]]


def position_error(lineno: int | None, message: str) -> ValueError:
    where = f"line {lineno}: " if lineno is not None else ""
    return ValueError(f"bad position text: {where}{message}")


def split_position(text: str, keys: tuple[str, ...]) -> PositionLines:
    """Split ``text`` into rows and the fields named in ``keys`` (blank lines are skipped).

    A line ``key: value`` with a known key is a field; any other line containing ``:`` is
    an error; everything else is a row. Fields may only follow the rows.
    """
    if not isinstance(text, str):
        raise ValueError(f"a position text must be a str, got {type(text).__name__}")
    rows: list[tuple[int, str]] = []
    fields: dict[str, tuple[int, str]] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if ":" in line:
            key, _, value = line.partition(":")
            key = key.strip()
            if key not in keys:
                raise position_error(lineno, f"unknown field {key!r}: expected one of {list(keys)}")
            if key in fields:
                raise position_error(lineno, f"field {key!r} appears twice")
            fields[key] = (lineno, value.strip())
        else:
            if fields:
                raise position_error(lineno, f"board row {line!r} after the fields: rows come first")
            rows.append((lineno, line))
    return PositionLines(rows, fields)


def parse_int(value: str, lineno: int | None, what: str, low: int, high: int, reason: str = "") -> int:
    """``int(value)`` within ``low..high`` inclusive, or a ``ValueError`` naming the line.

    ``high`` is the most the game can reach; ``reason`` says why, for the message. Only
    ASCII digits with an optional sign are read, and a number with more digits than the
    bound is refused before it is converted (no huge ints, no overflow later).
    """
    bound = f"in {low}..{high}" + (f" ({reason})" if reason else "")
    value = value.strip()
    if _INTEGER.fullmatch(value) is None:
        raise position_error(lineno, f"{what} must be an integer {bound}, got {_shown(value)}")
    sign = "-" if value[0] == "-" else ""
    significant = value.lstrip("+-").lstrip("0") or "0"  # leading zeros count towards int()'s digit limit
    if len(significant) > len(str(max(abs(low), abs(high)))):
        raise position_error(lineno, f"{what} must be {bound}, got {_shown(value)}")
    number = int(sign + significant)
    if not low <= number <= high:
        raise position_error(lineno, f"{what} must be {bound}, got {number}")
    return number


def _shown(value: str) -> str:
    """``repr(value)``, cut short: a message never repeats a megabyte of input."""
    return repr(value) if len(value) <= 40 else f"{value[:20]!r}... ({len(value)} characters)"
