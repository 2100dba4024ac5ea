"""Sky Towers for the play page: the position as a scene (``board_scene``: the deck, the
open pool, and one band per seat with its name plate, action card, hand and row of towers
numbered as in the notation, with the new-tower places ``L`` and ``R`` at its ends), where
each legal action starts and ends (``action_ways``) and the result in words
(``result_words``).

Hands are hidden: a scene shows the cards of the seats in ``shown_seats`` only (card backs
for the others), and the peeked card only to the seat peeking. A build starts on a card of
the hand and ends on a tower or a new-tower place (an 8 or 9 also on another seat's row); a
dismantle starts on the action card and ends on the tower. Drawing, taking an open card,
keeping or burying the peeked card, giving and discarding are clicks on the deck, the open
card or the hand card; exchanging and asking are clicks on the other seat's name plate (the
value asked for is then chosen); "stop" is a button.
"""

from __future__ import annotations

from sky_envs.core import scene as sc
from sky_envs.games.sky_towers.deck import BONUS_NAMES
from sky_envs.games.sky_towers.layout import (ASK, BOTTOM, BUILD, CHAOS, DISCARD, DISMANTLE, DRAW, EXCHANGE, GIVE,
                                              KEEP, STOP, TAKE)
from sky_envs.games.sky_towers.render import render_text
from sky_envs.games.sky_towers.rules import OVER, PEEK

CARD_W, CARD_H, STEP, PITCH = 36, 50, 17, 44
MARGIN, HEADER = 14, 92
CARD_FILL, BACK_FILL, SLOT_FILL = "#ffffff", "#78788c", "#f4f1e8"


def _card(x: float, y: float, label: str = "", fill: str = CARD_FILL, **style) -> dict:
    return sc.rect(x, y, CARD_W, CARD_H, r=4, fill=fill, stroke=style.pop("stroke", sc.INK_COLOUR),
                   width=style.pop("width", 1), label=label or None, label_size=16, bold=True, **style)


def _slot_id(seat: int, p: int, T: int) -> str:
    return f"p{seat}:t{p}" if p < T else (f"p{seat}:L" if p == T else f"p{seat}:R")


def _shown(shown_seats, seat: int) -> bool:
    return shown_seats is None or seat in shown_seats


def board_scene(state, shown_seats=None) -> dict:
    """The position as a scene (``sky_envs.core.scene``). ``shown_seats``: the seats whose
    hands are drawn face up (``None``: every seat, for a spectator of a finished or recorded game)."""
    st = state
    width = max(640, MARGIN * 2 + (max(len(row) for row in st.rows) + 2) * PITCH,
                MARGIN * 2 + 190 + 10 * PITCH)
    items = _header(st, shown_seats, width)
    y = HEADER
    for seat in range(st.n):
        band, y = _band(st, seat, shown_seats, y, width)
        items += band
    seats = [sc.seat_entry(s, [s]) for s in range(st.n)]
    return sc.scene(width, y + MARGIN, items, seats, render_text(st).splitlines()[0])


def _header(st, shown_seats, width: float) -> list[dict]:
    peeked = (st.deck[-1] if st.phase == PEEK and st.deck and st.current_player >= 0
              and _shown(shown_seats, st.current_player) else 0)
    deck = [_card(MARGIN, MARGIN, str(peeked) if peeked else "", fill=(CARD_FILL if peeked else BACK_FILL),
                  stroke=sc.GOLD if peeked else sc.INK_COLOUR, width=3 if peeked else 1),
            sc.text(MARGIN + CARD_W / 2, MARGIN + CARD_H + 12, f"deck {len(st.deck)}", 11, fill=sc.INK_COLOUR)]
    title = f"the deck: {len(st.deck)} card(s)" + (f"; the top card is a {peeked}" if peeked else "")
    items = [sc.thing("deck", deck, title)]
    x = MARGIN + CARD_W + 24
    items.append(sc.text(x, MARGIN + 10, "open:", 12, anchor="start", fill=sc.INK_COLOUR))
    for v in range(1, 11):
        if st.open[v]:
            items.append(sc.thing(f"open:{v}", [_card(x, MARGIN + 14, str(v), fill="#fff7d6"),
                                                sc.text(x + CARD_W - 3, MARGIN + 14 + CARD_H - 4, f"×{st.open[v]}", 9,
                                                        anchor="end", fill=sc.INK_COLOUR)],
                                  f"the open card {v} ({st.open[v]} in the pool)"))
            x += PITCH
    discards = " ".join(str(v) for v in range(1, 11) for _ in range(st.discards[v])) or "-"
    items.append(sc.text(x + 16, MARGIN + 34, f"discarded: {discards}", 11, anchor="start", fill=sc.INK_COLOUR))
    items.append(sc.thing("stop", [sc.rect(width - MARGIN - 90, MARGIN + 8, 90, 30, r=6, fill="#ffffff",
                                           stroke=sc.INK_COLOUR, label="stop", label_size=13)],
                          "stop: end a final turn, stop rushing 4s, or decline an effect"))
    return items


def _band(st, seat: int, shown_seats, top: float, width: float) -> tuple[list[dict], float]:
    colour = sc.COLOURS[seat % len(sc.COLOURS)]
    tallest = max([len(t) for t in st.rows[seat]] + [1])
    height = 34 + CARD_H + 14 + (tallest - 1) * STEP + CARD_H + 26
    deciding = seat == st.current_player
    items = [sc.rect(MARGIN / 2, top, width - MARGIN, height - 6, r=8, fill="#fbfaf6" if not deciding else "#fff9e0",
                     stroke=colour, width=3 if deciding else 1.5)]
    bonuses = [name.replace("_", " ") for b, name in enumerate(BONUS_NAMES) if st.holder[b] == seat]
    plate = (f"player_{seat}: {st.score(seat)} sails, {st.flags[seat]} flags, {len(st.piles[seat])} tower(s) "
             f"completed" + (f", bonuses: {', '.join(bonuses)}" if bonuses else ""))
    items.append(sc.thing(f"p{seat}:seat", [sc.rect(MARGIN, top + 6, width - 2 * MARGIN, 22, r=4, fill=colour, opacity=0.18),
                                            sc.text(MARGIN + 6, top + 22, plate + (" ← decides" if deciding else ""),
                                                    13, anchor="start", bold=deciding, fill=sc.INK_COLOUR)],
                          f"player_{seat} ({st.hand_size[seat]} card(s) in hand)"))
    y = top + 34
    ready = st.action_up[seat]
    items.append(sc.thing(f"p{seat}:dismantle", [
        sc.rect(MARGIN, y, 64, CARD_H, r=5, fill=colour if ready else "#d6d6d6", opacity=1 if ready else 0.8,
                stroke=sc.INK_COLOUR, width=1),
        sc.text(MARGIN + 32, y + 22, "dismantle", 10, fill="#ffffff" if ready else sc.INK_COLOUR),
        sc.text(MARGIN + 32, y + 36, "ready" if ready else "used", 10, fill="#ffffff" if ready else sc.INK_COLOUR)],
        f"player_{seat}'s action card: dismantle {'ready' if ready else 'used (complete a tower to flip it back)'}"))
    x = MARGIN + 84
    if _shown(shown_seats, seat):
        for v in range(1, 11):
            count = st.hands[seat][v]
            if count:
                items.append(sc.thing(f"p{seat}:hand:{v}", [
                    _card(x, y, str(v)), sc.text(x + CARD_W - 3, y + CARD_H - 4, f"×{count}", 9, anchor="end",
                                                 fill=sc.INK_COLOUR)], f"player_{seat}'s hand: {count} × {v}"))
                x += PITCH
        if not st.hand_size[seat]:
            items.append(sc.text(x, y + 28, "empty hand", 11, anchor="start", fill=sc.INK_COLOUR))
    else:
        backs = [_card(x + k * 10, y, fill=BACK_FILL) for k in range(min(st.hand_size[seat], 12))]
        backs.append(sc.text(x + min(st.hand_size[seat], 12) * 10 + CARD_W + 6, y + 28,
                             f"{st.hand_size[seat]} hidden card(s)", 11, anchor="start", fill=sc.INK_COLOUR))
        items.append(sc.thing(f"p{seat}:hand", backs, f"player_{seat}'s hand: {st.hand_size[seat]} hidden card(s)"))
    y += CARD_H + 14
    items += _row(st, seat, y, tallest, colour)
    return items, top + height


def _row(st, seat: int, y: float, tallest: int, colour: str) -> list[dict]:
    T = st.T
    towers = st.rows[seat]
    depth = (tallest - 1) * STEP + CARD_H
    dashed = {"fill": SLOT_FILL, "stroke": "#a09880", "dash": "4 3", "width": 1}
    items = [sc.thing(f"p{seat}:L", [sc.rect(MARGIN, y, CARD_W, depth, r=4, **dashed),
                                     sc.text(MARGIN + CARD_W / 2, y + depth + 14, "L", 11, fill=sc.INK_COLOUR)],
                      f"a new tower at the left end of player_{seat}'s row")]
    for k, (tower, total) in enumerate(zip(towers, st.sums[seat])):
        x = MARGIN + (k + 1) * PITCH
        shapes = [sc.rect(x - 2, y - 2, CARD_W + 4, depth + 4, r=5, fill="transparent", stroke="none")]   # all of it clicks
        for j, v in enumerate(tower):   # each card's value at its top, where the next card leaves it seen
            shapes += [_card(x, y + j * STEP), sc.text(x + CARD_W / 2, y + j * STEP + 14, str(v), 13, bold=True,
                                                       fill=sc.INK_COLOUR)]
        shapes.append(sc.text(x + CARD_W / 2, y + depth + 14, f"{k}: ={total}", 11, fill=colour, bold=True))
        items.append(sc.thing(f"p{seat}:t{k}", shapes, f"player_{seat}'s tower {k}: {' '.join(map(str, tower))} = {total}"))
    x = MARGIN + (len(towers) + 1) * PITCH
    if len(towers) < T:
        items.append(sc.thing(f"p{seat}:R", [sc.rect(x, y, CARD_W, depth, r=4, **dashed),
                                             sc.text(x + CARD_W / 2, y + depth + 14, "R", 11, fill=sc.INK_COLOUR)],
                              f"a new tower at the right end of player_{seat}'s row"))
    return items


def action_ways(state, actions) -> list[list[tuple[str | None, str]]]:
    """For each action: ``[(origin or None, target)]`` (see the module docstring)."""
    st = state
    layout = st.layout
    seat = st.current_player if st.current_player >= 0 else st.turn_of
    ways = []
    for action in map(int, actions):
        kind, v, o, p = layout.decode[action]
        other = (seat + o) % st.n
        if kind in (DRAW, KEEP, BOTTOM):
            way = (None, "deck")
        elif kind == TAKE:
            way = (None, f"open:{v}")
        elif kind == DISMANTLE:
            way = (f"p{seat}:dismantle", f"p{seat}:t{p}")
        elif kind == BUILD:
            way = (f"p{seat}:hand:{v}", _slot_id(seat, p, st.T))
        elif kind == CHAOS:
            way = (f"p{seat}:hand:{v}", _slot_id(other, p, st.T))
        elif kind == STOP:
            way = (None, "stop")
        elif kind in (EXCHANGE, ASK):
            way = (None, f"p{other}:seat")
        elif kind in (GIVE, DISCARD):
            way = (None, f"p{seat}:hand:{v}")
        else:
            raise ValueError(f"action {action} has no way on the board")
        ways.append([way])
    return ways


def result_words(state) -> str:
    """Who won and why: sails (towers and bonuses), then flags."""
    st = state
    if st.phase != OVER:
        return f"The game was cut at max_turns={st.game.max_turns} turns: a draw."
    scores = [st.score(s) for s in range(st.n)]
    winners = st.winners()
    parts = []
    for s in range(st.n):
        bonuses = [name.replace("_", " ") for b, name in enumerate(BONUS_NAMES) if st.holder[b] == s]
        extra = f" (bonuses: {', '.join(bonuses)})" if bonuses else ""
        parts.append(f"player_{s} {scores[s]} sails, {st.flags[s]} flags{extra}")
    head = "The deck ran out and every seat had its final turn. " + "; ".join(parts) + "."
    best = max(scores)
    tied = [s for s in range(st.n) if scores[s] == best]
    who = " and ".join(f"player_{s}" for s in winners)
    verb = "wins" if len(winners) == 1 else "share the win"
    if len(tied) == 1:
        return f"{head} {who} {verb} with the most sails."
    if len(winners) < len(tied):
        return f"{head} Tied on {best} sails, {who} {verb} with the most flags."
    return f"{head} Tied on sails and flags, {who} {verb}."

