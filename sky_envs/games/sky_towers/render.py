"""Pictures of a Sky Towers position: the text board (``render_text``) and the rgb picture
(``render_rgb``).

Both show every row of towers (cards bottom to top, with the sums), score piles, bonuses,
the deck and the open pool. Hands are shown only for the seat that decides now (the seat
the picture is rendered for), or for every seat with ``debug_render=True`` (which also
shows the deck order).
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from sky_envs.core.render import BACKGROUND, INK, PALETTE, default_font
from sky_envs.games.sky_towers.deck import BONUS_NAMES
from sky_envs.games.sky_towers.rules import OVER, PEEK, PHASE_HELP


def _hand_words(counts) -> str:
    return " ".join(str(v) for v in range(1, 11) for _ in range(counts[v])) or "-"


def _status(st) -> str:
    if st.phase == OVER:
        winners = ", ".join(f"player_{s}" for s in st.winners())
        return f"game over after {st.turns} turns: winner(s) {winners}"
    if st.current_player < 0:
        return f"game cut at max_turns={st.game.max_turns} (a draw)"
    kind = "final turn" if st.final else "turn"
    head = f"turn {st.turns + 1}: player_{st.turn_of}'s {kind}, {st.actions_left} action(s) left"
    if st.phase:
        head += f"; player_{st.current_player} decides {PHASE_HELP[st.phase]}"
    return head


def _shown(st, seat: int, debug: bool) -> bool:
    return debug or seat == st.current_player


def _peeked(st) -> int:
    """The card the deciding seat is peeking at (it is the seat rendered for), else 0."""
    return st.deck[-1] if st.phase == PEEK and st.current_player >= 0 and st.deck else 0


def render_text(st, debug: bool = False) -> str:
    lines = [f"Sky Towers, {st.n} players: {_status(st)}"]
    if _peeked(st):
        lines.append(f"player_{st.current_player} peeks at the top card: {_peeked(st)}")
    deck = f"deck: {len(st.deck)} card(s)"
    if debug:
        deck += " [top first: " + (" ".join(map(str, reversed(st.deck))) or "-") + "]"
    lines.append(f"{deck} | open: {_hand_words(st.open)} | discarded: {_hand_words(st.discards)}")
    for s in range(st.n):
        bonuses = [name for b, name in enumerate(BONUS_NAMES) if st.holder[b] == s]
        card = "dismantle ready" if st.action_up[s] else "dismantle used"
        lines.append(f"player_{s}: {st.score(s)} sails, {st.flags[s]} flags, {len(st.piles[s])} tower(s) "
                     f"completed, {card}, bonuses: {', '.join(bonuses) or '-'}")
        hand = _hand_words(st.hands[s]) if _shown(st, s, debug) else f"{st.hand_size[s]} hidden card(s)"
        lines.append(f"  hand: {hand}")
        # numbered as in the move notation ("7>1" builds a 7 on tower 1)
        towers = [f"{k}:[" + " ".join(map(str, t)) + f" ={total}]" for k, (t, total) in enumerate(zip(st.rows[s], st.sums[s]))]
        lines.append(f"  row:  {' '.join(towers) or '-'}")
    return "\n".join(lines)


# ================================================================== rgb_array
CARD_W, CARD_H, STEP, GAP = 30, 40, 14, 8
CARD_FILL = (255, 255, 255)
BACK_FILL = (120, 120, 140)
PEEK_FILL = (255, 235, 160)


def _card(draw, x: int, y: int, label: str, fill=CARD_FILL, outline=INK, font=None) -> None:
    draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), radius=4, fill=fill, outline=outline)
    if label:
        draw.text((x + 8, y + 8), label, fill=INK, font=font, anchor="mm")


def render_rgb(st, debug: bool = False) -> np.ndarray:
    """Each seat is one band: its name and score, its hand, then its row of towers."""
    font, small = default_font(13), default_font(11)
    T = st.T
    tallest = max([len(t) for row in st.rows for t in row] + [1])
    band_h = 36 + CARD_H + 10 + (tallest - 1) * STEP + CARD_H + 24
    hand_len = max([st.hand_size[s] for s in range(st.n)] + [1])
    width = max(16 + T * (CARD_W + GAP), 16 + hand_len * (CARD_W // 2 + 2) + CARD_W, 640)
    height = 56 + st.n * band_h
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((8, 6), f"Sky Towers: {_status(st)}", fill=INK, font=font)
    deck = f"deck {len(st.deck)} | open: {_hand_words(st.open)} | discarded: {_hand_words(st.discards)}"
    if debug and st.deck:
        deck += " | deck top first: " + " ".join(map(str, reversed(st.deck)))
    draw.text((8, 26), deck, fill=INK, font=small)
    for s in range(st.n):
        top = 48 + s * band_h
        colour = PALETTE[s % len(PALETTE)]
        draw.rectangle((0, top, width, top + band_h - 4), outline=colour, width=3)
        bonuses = [name for b, name in enumerate(BONUS_NAMES) if st.holder[b] == s]
        marker = " <- decides" if s == st.current_player else ""
        draw.text((8, top + 8), f"player_{s}: {st.score(s)} sails, {st.flags[s]} flags, {len(st.piles[s])} "
                                f"completed, {'dismantle ready' if st.action_up[s] else 'dismantle used'}, "
                                f"bonuses: {', '.join(bonuses) or '-'}{marker}", fill=colour, font=font)
        y = top + 30
        x = 8
        shown = _shown(st, s, debug)
        for v in range(1, 11):
            for _ in range(st.hands[s][v]):
                _card(draw, x, y, str(v) if shown else "", CARD_FILL if shown else BACK_FILL, font=small)
                x += CARD_W // 2 + 2
        y += CARD_H + 10
        for p, (tower, total) in enumerate(zip(st.rows[s], st.sums[s])):
            x = 8 + p * (CARD_W + GAP)
            for k, v in enumerate(tower):
                _card(draw, x, y + k * STEP, str(v), font=small)
            draw.text((x + CARD_W / 2, y + (tallest - 1) * STEP + CARD_H + 10), f"={total}",
                      fill=colour, font=small, anchor="mm")
    peeked = _peeked(st)
    if peeked:
        draw.text((width - 160, 26), f"peeked top card: {peeked}", fill=INK, font=small)
    return np.asarray(image, dtype=np.uint8)

