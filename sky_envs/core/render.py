"""Pictures of positions with Pillow: a cell grid (square or hex) and plain text.

Games build a list of :class:`Cell` per row and call :func:`grid_image`; the colour
palette is shared so that colour ``i`` looks the same in every game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: colour index -> RGB: blue, red, green, yellow (seat/colour 0..3), shared by all games.
PALETTE = ((52, 101, 164), (204, 0, 0), (78, 154, 6), (237, 212, 0))
BACKGROUND = (250, 250, 245)
EMPTY_CELL = (222, 214, 196)
INK = (20, 20, 20)


@dataclass(frozen=True)
class Cell:
    """One board cell: its fill colour and a short label (height, piece letter...)."""

    fill: tuple[int, int, int] = EMPTY_CELL
    label: str = ""


def default_font(size: int) -> ImageFont.ImageFont:
    """Pillow's default font at ``size`` pixels (unsized before Pillow 10.1)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has no sized default font
        return ImageFont.load_default()


def _label_ink(fill: tuple[int, int, int]) -> tuple[int, int, int]:
    return INK if sum(fill) > 450 else (255, 255, 255)


def grid_image(
    cells: list[list[Cell | None]],
    cell_size: int = 48,
    hex_layout: bool = False,
    col_labels: str | list[str] | None = None,
    row_labels: list[str] | None = None,
    caption: str = "",
) -> np.ndarray:
    """Draw a grid of cells (``None`` = no cell) as an ``(H, W, 3)`` uint8 array.

    With ``hex_layout`` row r is shifted right by r/2 cells, which draws axial hex
    coordinates (neighbours N, NE, E, S, SW, W) as a rhombus of touching cells.
    """
    rows = len(cells)
    cols = max((len(r) for r in cells), default=0)
    margin = cell_size // 2 + 8
    shift = cell_size / 2 if hex_layout else 0
    width = int(2 * margin + cols * cell_size + shift * max(rows - 1, 0))
    height = 2 * margin + rows * cell_size + (cell_size // 2 if caption else 0)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = default_font(max(10, cell_size // 3))
    small = default_font(max(9, cell_size // 4))
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            if cell is None:
                continue
            x0 = margin + c * cell_size + shift * r
            y0 = margin + r * cell_size
            box = (x0 + 2, y0 + 2, x0 + cell_size - 2, y0 + cell_size - 2)
            if hex_layout:
                draw.ellipse(box, fill=cell.fill, outline=INK)
            else:
                draw.rectangle(box, fill=cell.fill, outline=INK)
            if cell.label:
                draw.text((x0 + cell_size / 2, y0 + cell_size / 2), cell.label,
                          fill=_label_ink(cell.fill), font=font, anchor="mm")
    if col_labels:
        for c, label in enumerate(col_labels[:cols]):
            draw.text((margin + c * cell_size + cell_size / 2, margin / 2), label, fill=INK, font=small, anchor="mm")
    if row_labels:
        for r, label in enumerate(row_labels[:rows]):
            draw.text((margin / 2, margin + r * cell_size + cell_size / 2), label, fill=INK, font=small, anchor="mm")
    if caption:
        draw.text((margin, height - margin + 4), caption, fill=INK, font=small, anchor="lm")
    return np.asarray(image, dtype=np.uint8)


def text_image(text: str, size: int = 14) -> np.ndarray:
    """``text`` drawn in a monospace-like default font (a fallback for any game)."""
    font = default_font(size)
    lines = text.splitlines() or [""]
    line_height = size + 4
    width = 16 + max(int(font.getlength(line)) for line in lines)
    image = Image.new("RGB", (max(width, 32), 16 + line_height * len(lines)), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((8, 8 + i * line_height), line, fill=INK, font=font)
    return np.asarray(image, dtype=np.uint8)
