"""Skybridge piece codes, colours and directions, shared by every module of the engine.

A piece in a tower is one int ``colour * 8 + kind``. ``kind`` is :data:`TALL`,
:data:`SHORT`, :data:`ROOF`, or ``BRIDGE + d`` for a bridge end whose partner lies in
direction ``d`` (0 n, 1 e, 2 s, 3 w). Supplies are lists ``[tall, short, bridges, roofs]``
indexed by the ``SUP_*`` constants (the order of the position text).
"""

from __future__ import annotations

TALL, SHORT, ROOF, BRIDGE = 0, 1, 2, 4
EMPTY = -1                                  # kind of the top of an empty foundation
STOREYS = {TALL: 3, SHORT: 2, ROOF: 0}      # a bridge is 1 storey
KIND_LETTERS = {TALL: "T", SHORT: "S", ROOF: "R"}
KIND_NAMES = {TALL: "tall block", SHORT: "short block", ROOF: "roof", BRIDGE: "bridge"}

SUP_T, SUP_S, SUP_B, SUP_R = 0, 1, 2, 3
SUPPLY_LETTERS = ("T", "S", "B", "R")
SUPPLY_NAMES = ("tall blocks", "short blocks", "bridges", "roofs")
#: the supply entry a piece of each kind comes from
SUP_OF_KIND = {TALL: SUP_T, SHORT: SUP_S, ROOF: SUP_R, BRIDGE: SUP_B}

DIR_LETTERS = "nesw"
DIR_DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))
OPPOSITE = (2, 3, 0, 1)

NUM_COLOURS = 4
NEUTRAL = 3                                 # the neutral colour with 3 seats


def piece_storeys(kind: int) -> int:
    return 1 if kind >= BRIDGE else STOREYS[kind]


def token(piece: int) -> str:
    """The position-text token of a piece code: ``0T``, ``3S``, ``1R``, ``2Be``."""
    colour, kind = divmod(piece, 8)
    if kind >= BRIDGE:
        return f"{colour}B{DIR_LETTERS[kind - BRIDGE]}"
    return f"{colour}{KIND_LETTERS[kind]}"
