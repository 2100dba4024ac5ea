"""Sky Towers move notation (documented in ``sky_envs.sky_towers_v0``): the card and its target.

Towers are numbered 0, 1, .. from the left of a row (the board shows ``0:[3 5 =8]``);
``L`` / ``R`` is a new tower at the left / right end; seats are ``p0`` .. ``p3``.

* ``draw``, ``take 7`` (the open 7), ``dismantle 2`` (your tower 2);
* ``7>2`` build a 7 on your tower 2, ``7>L`` / ``7>R`` on a new tower at the left / right end;
* ``8>p1:2`` / ``9>p1:R`` build an 8 or 9 on player_1's row;
* ``stop``; ``exchange p1`` then ``give 5``; ``keep`` / ``bottom`` (the peeked card);
  ``ask p1 7``; ``discard 5``.

Described in words, an action names the seats it involves (``ask player_1 for a 7``).
"""

from __future__ import annotations

import re

from sky_envs.core.notation import normalise, notation_error
from sky_envs.games.sky_towers.layout import (ASK, BOTTOM, BUILD, CHAOS, DISCARD, DISMANTLE, DRAW, EXCHANGE, GIVE,
                                              KEEP, STOP, TAKE)

FORM = ("'draw', 'take V', 'dismantle T', 'V>T' / 'V>L' / 'V>R' (build card V on your tower T or a new "
        "tower at the left / right end), 'V>pS:T' (an 8 or 9 on player_S's row), 'stop', 'exchange pS', "
        "'give V', 'keep', 'bottom', 'ask pS V' or 'discard V' (V a card value 1..10, T a tower number from 0)")
_WORDS = {"draw": DRAW, "stop": STOP, "keep": KEEP, "bottom": BOTTOM}
_VALUE = re.compile(r"(take|give|discard)\s+([0-9]+)")
_DISMANTLE = re.compile(r"dismantle\s+([0-9]+)")
_BUILD = re.compile(r"([0-9]+)\s*>\s*(?:p([0-9])\s*:\s*)?([0-9]+|l|r)")
_EXCHANGE = re.compile(r"exchange\s+p([0-9])")
_ASK = re.compile(r"ask\s+p([0-9])\s+([0-9]+)")


def _seat(state) -> int:
    return state.current_player if state.current_player >= 0 else state.turn_of


def _place(layout, p: int) -> str:
    return str(p) if p < layout.T else ("L" if p == layout.T else "R")


def action_to_string(state, action: int) -> str:
    layout = state.layout
    kind, v, o, p = layout.decode[action]
    seat = (_seat(state) + o) % state.n
    if kind in (DRAW, STOP, KEEP, BOTTOM):
        return {DRAW: "draw", STOP: "stop", KEEP: "keep", BOTTOM: "bottom"}[kind]
    if kind in (TAKE, GIVE, DISCARD):
        return f"{ {TAKE: 'take', GIVE: 'give', DISCARD: 'discard'}[kind]} {v}"
    if kind == DISMANTLE:
        return f"dismantle {p}"
    if kind == BUILD:
        return f"{v}>{_place(layout, p)}"
    if kind == CHAOS:
        return f"{v}>p{seat}:{_place(layout, p)}"
    if kind == EXCHANGE:
        return f"exchange p{seat}"
    return f"ask p{seat} {v}"


def string_to_action(state, text: str) -> int:
    layout = state.layout
    move = normalise(text, FORM)

    def value(digits: str) -> int:
        if not 1 <= int(digits) <= 10:
            raise notation_error(text, FORM, f"{digits} is not a card value 1..10")
        return int(digits)

    def offset(digit: str) -> int:
        seat = int(digit)
        if seat >= state.n:
            raise notation_error(text, FORM, f"there is no player_{seat} in a {state.n}-player game")
        return (seat - _seat(state)) % state.n

    def place(where: str) -> int:
        if where in ("l", "r"):
            return layout.T + (where == "r")
        if int(where) >= layout.T:
            raise notation_error(text, FORM, f"towers are numbered 0..{layout.T - 1}")
        return int(where)

    def others(o: int) -> int:
        if o == 0:
            raise notation_error(text, FORM, f"player_{_seat(state)} cannot do that with their own hand")
        return o

    if move in _WORDS:
        kind = _WORDS[move]
        action = {DRAW: 0, STOP: layout.STOP, KEEP: layout.KEEP, BOTTOM: layout.BOTTOM}[kind]
    elif match := _VALUE.fullmatch(move):
        v = value(match[2])
        action = {"take": v, "give": layout.GIVE + v, "discard": layout.DISCARD + v}[match[1]]
    elif match := _DISMANTLE.fullmatch(move):
        action = layout.DISMANTLE + place(match[1])
    elif match := _BUILD.fullmatch(move):
        v, p = value(match[1]), place(match[3])
        o = offset(match[2]) if match[2] is not None else 0
        if o == 0:
            action = layout.build(v, p)
        elif v in (8, 9):
            action = layout.chaos(v, o, p)
        else:
            raise notation_error(text, FORM, "only an 8 or a 9 is built on another player's row")
    elif match := _EXCHANGE.fullmatch(move):
        action = layout.EXCHANGE + others(offset(match[1]))
    elif match := _ASK.fullmatch(move):
        action = layout.ask(others(offset(match[1])), value(match[2]))
    else:
        raise notation_error(text, FORM)
    return state.check_legal(action, text)


def describe_action(state, action: int) -> str:
    """The layout's meaning of ``action`` with the seat offsets turned into seats."""
    layout = state.layout
    kind, v, o, p = layout.decode[action]
    seat = _seat(state)
    if kind == CHAOS:
        return f"build a {v} on {layout.where(p)} of player_{(seat + o) % state.n}'s row"
    if kind in (EXCHANGE, ASK):
        return layout.describe(action).replace(f"the seat at offset +{o}", f"player_{(seat + o) % state.n}")
    return layout.describe(action)
