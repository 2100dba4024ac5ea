"""Pictures of a Skybridge position: the text board (``render_text``: a grid of towers, the
scores, then the position text) and an isometric rgb picture (``render_rgb``): every piece a
coloured block at its height.

Foundations are drawn as a diamond grid (row 0 at the back-left edge, column 0 at the
back-right edge), towers as stacks of boxes, each piece in its colour with a dark outline,
bridges as one-storey slabs on both towers joined across the gap, roofs as pyramids. The
height of every tower is written above it; a caption gives the scores and who is to place.
The image size depends only on the board size; very tall towers are drawn with thinner
storeys so that everything fits.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from sky_envs.core.notation import column_name
from sky_envs.core.render import BACKGROUND, EMPTY_CELL, INK, PALETTE, default_font
from sky_envs.games.skybridge.pieces import BRIDGE, DIR_DELTAS, ROOF, piece_storeys, token

HALF_W, HALF_H = 40, 20     # half the width and height of one foundation's diamond
ROOM = 220                  # pixels above the board for the towers
MARGIN = 24
CAPTION = 44
GAP = 0.17                  # inset of a tower inside its foundation (in foundation units)


def _shade(rgb, factor: float) -> tuple[int, int, int]:
    return tuple(max(0, min(255, int(v * factor))) for v in rgb)


def render_text(state) -> str:
    """The ``ansi`` picture: a grid of towers (height and top piece), scores, then the text."""
    game = state.game
    cells = []
    for i, stack in enumerate(state.stacks):
        cells.append(f"{state.heights[i]}:{token(stack[-1])}" if stack else ".")
    width = max(6, *(len(c) for c in cells)) + 1
    # foundations labelled by their names in the move notation: column letters, rows from 1 at the top
    header = "    " + "".join(column_name(c).ljust(width) for c in range(game.cols))
    lines = [f"skybridge ({game.variant}, {game.num_players} seats) heights:top", header.rstrip()]
    for r in range(game.rows):
        row = cells[r * game.cols:(r + 1) * game.cols]
        lines.append((f"{r + 1:<4}" + "".join(c.ljust(width) for c in row)).rstrip())
    colours = "; ".join(f"player_{s}: {','.join(map(str, cs))}" for s, cs in enumerate(game.slot_colour))
    lines.append(f"colours {colours}")
    lines.append(f"scores {state.scores()}")
    if state.current_player >= 0:
        lines.append(f"player_{state.current_player} to place")
    elif state.is_terminal():
        lines.append(f"game over, winners {state.winners()}")
    else:
        lines.append("game over by max_turns (a draw)")
    return "\n".join(lines) + "\n\n" + state.to_text()

def render_rgb(state) -> np.ndarray:
    game = state.game
    R, C = game.rows, game.cols
    width = (R + C) * HALF_W + 2 * MARGIN
    height = ROOM + (R + C) * HALF_H + 2 * MARGIN + CAPTION
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    x0, y0 = MARGIN + R * HALF_W, MARGIN + ROOM
    storey = min(16.0, (ROOM - 24) / max(1, max(state.heights)))

    def point(x: float, y: float, z: float) -> tuple[float, float]:
        return x0 + (x - y) * HALF_W, y0 + (x + y) * HALF_H - z * storey

    def box(xa, xb, ya, yb, za, zb, rgb) -> None:
        top = [point(xa, ya, zb), point(xb, ya, zb), point(xb, yb, zb), point(xa, yb, zb)]
        left = [point(xa, yb, zb), point(xb, yb, zb), point(xb, yb, za), point(xa, yb, za)]
        right = [point(xb, ya, zb), point(xb, yb, zb), point(xb, yb, za), point(xb, ya, za)]
        draw.polygon(left, fill=_shade(rgb, 0.8), outline=INK)
        draw.polygon(right, fill=_shade(rgb, 0.6), outline=INK)
        draw.polygon(top, fill=_shade(rgb, 1.1), outline=INK)

    def roof(xa, xb, ya, yb, z, rgb) -> None:
        apex = point((xa + xb) / 2, (ya + yb) / 2, z + 1.2)
        corners = [point(xa, ya, z), point(xb, ya, z), point(xb, yb, z), point(xa, yb, z)]
        for k, factor in ((0, 1.0), (3, 0.9), (2, 0.8), (1, 0.65)):  # back faces first
            draw.polygon([corners[k], corners[(k + 1) % 4], apex], fill=_shade(rgb, factor), outline=INK)

    for r in range(R):
        for c in range(C):
            draw.polygon([point(c, r, 0), point(c + 1, r, 0), point(c + 1, r + 1, 0), point(c, r + 1, 0)],
                         fill=EMPTY_CELL, outline=INK)

    items = []  # (depth, base, order, callable)
    for i, stack in enumerate(state.stacks):
        r, c = divmod(i, C)
        xa, xb, ya, yb = c + GAP, c + 1 - GAP, r + GAP, r + 1 - GAP
        base = 0
        for piece in stack:
            colour, kind = piece >> 3, piece & 7
            rgb = PALETTE[colour]
            if kind == ROOF:
                items.append((r + c, base, 0, lambda a=(xa, xb, ya, yb, base, rgb): roof(*a)))
                continue
            top = base + piece_storeys(kind)
            items.append((r + c, base, 0, lambda a=(xa, xb, ya, yb, base, top, rgb): box(*a)))
            if kind - BRIDGE in (1, 2):  # the deck across the gap, drawn once from the w / n end
                dr, dc = DIR_DELTAS[kind - BRIDGE]
                if dc:
                    deck = (c + 1 - GAP, c + 1 + GAP, r + 0.3, r + 0.7, base, top, rgb)
                else:
                    deck = (c + 0.3, c + 0.7, r + 1 - GAP, r + 1 + GAP, base, top, rgb)
                items.append((r + c + 0.5, base, 1, lambda a=deck: box(*a)))
            base = top
    font, small = default_font(13), default_font(12)

    def label(r, c, h, extra) -> None:
        x, y = point(c + 0.5, r + 0.5, h + extra)
        draw.text((x, y - 6), str(h), fill=INK, font=font, anchor="mb", stroke_width=2, stroke_fill=BACKGROUND)

    for i, h in enumerate(state.heights):  # heights above the towers, hidden by towers in front
        if state.stacks[i]:
            r, c = divmod(i, C)
            extra = 1.2 if state.top_kind[i] == ROOF else 0
            items.append((r + c, h + 1, 2, lambda a=(r, c, h, extra): label(*a)))
    for _, _, _, paint in sorted(items, key=lambda item: item[:3]):
        paint()

    scores = ", ".join(f"p{s}: {v}" for s, v in enumerate(state.scores()))
    if state.current_player >= 0:
        status = f"player_{state.current_player} to place"
    elif state.is_terminal():
        status = f"game over, winners {state.winners()}"
    else:
        status = "game over by max_turns (draw)"
    colours = "  ".join(f"p{s}=" + "+".join(map(str, cs)) for s, cs in enumerate(game.slot_colour))
    captions = (f"{game.variant}  scores {scores}", f"{status}   colours {colours}")
    needed = int(MARGIN + max(small.getlength(text) for text in captions))
    if needed > width:  # widen the canvas rather than cut the caption off
        wider = Image.new("RGB", (needed, height), BACKGROUND)
        wider.paste(image, (0, 0))
        image, draw = wider, ImageDraw.Draw(wider)
    for k, text in enumerate(captions):
        draw.text((MARGIN / 2, height - CAPTION + 4 + 18 * k), text, fill=INK, font=small)
    return np.asarray(image, dtype=np.uint8)
