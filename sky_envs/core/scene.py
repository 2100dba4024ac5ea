"""Positions as drawable descriptions: plain JSON data that the play page turns into SVG.

Each built-in game's ``board_view.py`` builds a *scene* of its position with the helpers
here; the page (``sky_envs/play/static/play.js``) draws any scene the same way and knows
nothing of the games. A scene is a dict::

    {"width": W, "height": H,        # the drawing's box in drawing units; the page scales it
     "items": [...],                 # shapes and things, drawn in order (later on top)
     "seats": [{"seat": 0, "colours": ["#3465a4"], "label": "a"}, ...],   # each seat's colours
     "caption": "player_0 to move"}  # the game's own status line

A *shape* is one of (every number in drawing units, y downwards)::

    {"shape": "rect", "x", "y", "w", "h", "r"?}        # r: corner radius
    {"shape": "circle", "x", "y", "r"}                  # x, y: the centre
    {"shape": "polygon", "points": [[x, y], ...]}
    {"shape": "line", "points": [[x, y], ...]}          # an open polyline
    {"shape": "text", "x", "y", "text", "size", "anchor"?: "start" | "middle" | "end"}

with optional style keys ``fill``, ``stroke`` (CSS colours, ``"none"`` for nothing),
``width`` (stroke width), ``dash``, ``opacity``, ``bold``; a rect, circle or polygon may
carry a ``label`` (text centred on it, ``label_size``, ``label_fill``). A *thing* is what a
player can click: ``{"id": "c3", "title": "c3: a stack of 2", "shapes": [...]}``; its id is
what a game's ``action_ways`` names as the origin and the target of each legal action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sky_envs.core.notation import column_name
from sky_envs.core.render import BACKGROUND, EMPTY_CELL, INK, PALETTE

Point = tuple[float, float]


def hex_colour(rgb: tuple[int, int, int]) -> str:
    """``(52, 101, 164)`` -> ``"#3465a4"``."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


#: colour index 0..3 as CSS colours: the same blue, red, green, yellow as the pictures
COLOURS = tuple(hex_colour(rgb) for rgb in PALETTE)
EMPTY = hex_colour(EMPTY_CELL)
PAPER = hex_colour(BACKGROUND)
INK_COLOUR = hex_colour(INK)
GOLD = "#d4af37"
GREY = "#9a9a9a"


def label_ink(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (a ``#rrggbb`` colour)."""
    if not fill.startswith("#") or len(fill) != 7:
        return INK_COLOUR
    r, g, b = (int(fill[k:k + 2], 16) for k in (1, 3, 5))
    return INK_COLOUR if r + g + b > 450 else "#ffffff"


def _shape(kind: str, style: dict[str, Any], **geometry: Any) -> dict[str, Any]:
    shape = {"shape": kind, **geometry}
    shape.update({key: value for key, value in style.items() if value is not None})
    if "label" in shape and "label_fill" not in shape:
        shape["label_fill"] = label_ink(shape.get("fill", PAPER))
    return shape


def rect(x: float, y: float, w: float, h: float, **style: Any) -> dict[str, Any]:
    return _shape("rect", style, x=x, y=y, w=w, h=h)


def circle(x: float, y: float, r: float, **style: Any) -> dict[str, Any]:
    return _shape("circle", style, x=x, y=y, r=r)


def polygon(points: list[Point], **style: Any) -> dict[str, Any]:
    return _shape("polygon", style, points=[[round(px, 2), round(py, 2)] for px, py in points])


def line(points: list[Point], **style: Any) -> dict[str, Any]:
    return _shape("line", style, points=[[round(px, 2), round(py, 2)] for px, py in points])


def text(x: float, y: float, words: str, size: float = 12, **style: Any) -> dict[str, Any]:
    return _shape("text", style, x=x, y=y, text=words, size=size)


def thing(thing_id: str, shapes: list[dict[str, Any]], title: str = "") -> dict[str, Any]:
    """A clickable thing: ``shapes`` drawn as one, named ``thing_id``."""
    return {"id": thing_id, "title": title or thing_id, "shapes": shapes}


def hexagon(x: float, y: float, width: float) -> list[Point]:
    """The corners of a pointy-topped hexagon centred on ``(x, y)``, ``width`` across its flats."""
    half = width / 2
    side = width / 3 ** 0.5
    return [(x, y - side), (x + half, y - side / 2), (x + half, y + side / 2),
            (x, y + side), (x - half, y + side / 2), (x - half, y - side / 2)]


def seat_entry(seat: int, colours: list[int], label: str = "") -> dict[str, Any]:
    """One entry of a scene's ``"seats"``: the seat's colour indices as CSS colours."""
    return {"seat": seat, "colours": [COLOURS[c] for c in colours if 0 <= c < len(COLOURS)], "label": label}


def scene(width: float, height: float, items: list[dict[str, Any]], seats: list[dict[str, Any]],
          caption: str = "") -> dict[str, Any]:
    return {"width": round(width, 2), "height": round(height, 2), "items": items, "seats": seats,
            "caption": caption}


def edge_labels(rows: int, cols: int, centre: Callable[[int, int], Point], offset: float, size: float = 12,
                row_name: Callable[[int], str] = lambda r: str(r + 1),
                col_name: Callable[[int], str] = column_name) -> list[dict[str, Any]]:
    """The move notation's coordinates around a grid: column names above the top row and
    below the bottom one, row names left and right of every row (by default the notation of
    :mod:`sky_envs.core.notation`: letters, and rows from 1 at the top). ``centre(r, c)`` is
    the drawing position of the centre of cell (r, c) of the bounding box; the labels stand
    ``offset`` from the centres of the outer cells."""
    items = []
    for c in range(cols):
        for r, shift in ((0, -1), (rows - 1, 1)):
            x, y = centre(r, c)
            items.append(text(x, y + shift * offset + size / 3, col_name(c), size, fill=INK_COLOUR))
    for r in range(rows):
        for c, shift in ((0, -1), (cols - 1, 1)):
            x, y = centre(r, c)
            items.append(text(x + shift * offset, y + size / 3, row_name(r), size, fill=INK_COLOUR))
    return items
