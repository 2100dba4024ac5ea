"""Skybridge move notation (documented in ``sky_envs.skybridge_v0``): the piece letter, the
colour digit, then where.

* ``T0b2``, ``S0b2``, ``R0b2``: a tall block, short block or roof of colour 0 on foundation b2;
* ``B1a1-b1``: a bridge of colour 1 between the neighbouring foundations a1 and b1.

Colours are the digits the board shows (``colours player_0: 0,2; ...``; 3 is the neutral
colour with 3 seats); foundations are named as in :mod:`sky_envs.core.notation` (column
letter, row from 1 at the top). Case and spaces do not matter (``t0 B2`` reads too).
"""

from __future__ import annotations

import re

from sky_envs.core.state import IllegalActionError
from sky_envs.core.notation import cell_name, normalise, notation_error, parse_cell
from sky_envs.games.skybridge.pieces import BRIDGE, KIND_NAMES, NUM_COLOURS, ROOF, SHORT, TALL

FORM = ("a piece letter (T tall, S short, R roof, B bridge), a colour digit and a foundation, "
        "such as 'T0b2', or for a bridge two neighbouring foundations, such as 'B1a1-b1'")
_PIECE = re.compile(r"([tsr])\s*([0-9])\s*([a-z]+[0-9]+)")
_BRIDGE = re.compile(r"b\s*([0-9])\s*([a-z]+[0-9]+)\s*-?\s*([a-z]+[0-9]+)")
_LETTERS = {TALL: "T", SHORT: "S", ROOF: "R"}
_KINDS = {"t": TALL, "s": SHORT, "r": ROOF}


def _seat(state) -> int:
    return state.current_player if state.current_player >= 0 else state.to_move


def action_to_string(state, action: int) -> str:
    game = state.game
    slot, kind, target = state.decode(action)
    colours = game.slot_colour[_seat(state)]
    colour = str(colours[slot]) if slot < len(colours) else "?"   # a slot this seat count leaves unused
    name = lambda i: cell_name(*divmod(i, game.cols))  # noqa: E731
    if kind == BRIDGE:
        a, b, _ = game.edges[target]
        return f"B{colour}{name(a)}-{name(b)}"
    return f"{_LETTERS[kind]}{colour}{name(target)}"


def string_to_action(state, text: str) -> int:
    game = state.game
    move = normalise(text, FORM).replace(" ", "")
    cell = lambda name: parse_cell(name, game.rows, game.cols, text, FORM)  # noqa: E731
    B = game.num_foundations
    if match := _PIECE.fullmatch(move):
        colour, offset = int(match[2]), {TALL: 0, SHORT: B, ROOF: 2 * B}[_KINDS[match[1]]] + cell(match[3])
    elif match := _BRIDGE.fullmatch(move):
        ends = {cell(match[2]), cell(match[3])}
        edge = next((e for e, (a, b, _) in enumerate(game.edges) if {a, b} == ends), None)
        if edge is None:
            raise notation_error(text, FORM, f"{match[2]} and {match[3]} are not neighbouring foundations")
        colour, offset = int(match[1]), 3 * B + edge
    else:
        raise notation_error(text, FORM)
    if colour >= NUM_COLOURS:
        raise notation_error(text, FORM, f"the colours are 0..{NUM_COLOURS - 1}")
    colours = game.slot_colour[_seat(state)]
    if colour not in colours:
        raise IllegalActionError(f"{text} is illegal: player_{_seat(state)} plays colour(s) "
                                 f"{', '.join(map(str, colours))}, not {colour}")
    return state.check_legal(colours.index(colour) * game.slot_size + offset, text)


def describe_action(state, action: int) -> str:
    """The piece, its colour and where it goes, in words (``colour 0 tall block on b2``)."""
    slot, kind, target = state.decode(action)
    colours = state.game.slot_colour[_seat(state)]
    colour = f"colour {colours[slot]}" if slot < len(colours) else f"slot {slot}"
    if kind == BRIDGE:
        a, b, _ = state.game.edges[target]
        return f"{colour} bridge on {state.where(a)}-{state.where(b)}"
    return f"{colour} {KIND_NAMES[kind]} on {state.where(target)}"
