"""Helpers for reading position texts: every error names the line and says what is expected."""

from __future__ import annotations

from dataclasses import dataclass


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


def parse_int(value: str, lineno: int, what: str, low: int, high: int) -> int:
    """``int(value)`` within ``low..high`` inclusive, or a ``ValueError`` naming the line."""
    try:
        number = int(value)
    except ValueError:
        raise position_error(lineno, f"{what} must be an integer in {low}..{high}, got {value!r}") from None
    if not low <= number <= high:
        raise position_error(lineno, f"{what} must be in {low}..{high}, got {number}")
    return number
