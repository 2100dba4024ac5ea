"""Highrise Heist and Golden Rush move notation (documented in ``sky_envs.highrise_heist_v0``
and ``sky_envs.golden_rush_v0``). Stands are numbered as in the rules file (0 = the golden
stand / the centre), each a single digit:

* ``3>7``: transfer the top group of stand 3 onto stand 7;
* ``pass``: no transfer (``-`` reads too);
* ``+5``, ``+55``, ``+555``: place 1, 2 or 3 blocks on stand 5; ``+37``, ``+377``, ``+337``:
  place on two stands, one digit per block (``+73`` reads as ``+37``; the ``+`` may be left out);
* ``swap``: swap colours (pie rule, Highrise Heist only).

Described in words, stands carry what is special about them (``0 (golden)``).
"""

from __future__ import annotations

import re
from collections import Counter

from sky_envs.core.notation import normalise, notation_error

_TRANSFER = re.compile(r"([0-9])\s*[>\- ]\s*([0-9])")
_PLACE = re.compile(r"\+?\s*([0-9]{1,3})")


def form(layout) -> str:
    last = layout.num_stands - 1
    swap = ", 'swap'" if layout.swap >= 0 else ""
    return (f"a transfer such as '3>7' (top group of stand 3 onto stand 7), 'pass' (no transfer), "
            f"a placement such as '+5' / '+55' (one digit per block, stands 0..{last}){swap}")


def action_to_string(layout, action: int) -> str:
    S = layout.num_stands
    if 0 <= action < layout.no_transfer:
        return "{}>{}".format(*divmod(action, S))
    if action == layout.no_transfer:
        return "pass"
    if action == layout.swap:
        return "swap"
    parts = layout.placements[action - layout.single]
    return "+" + "".join(str(stand) * count for stand, count in parts)


def string_to_action(state, text: str) -> int:
    layout = state.game.layout
    expected = form(layout)
    move = normalise(text, expected)
    S = layout.num_stands
    if move in ("pass", "-", "no transfer"):
        action = layout.no_transfer
    elif move == "swap":
        if layout.swap < 0:
            raise notation_error(text, expected, "this game has no swap")
        action = layout.swap
    elif match := _TRANSFER.fullmatch(move):
        source, target = int(match[1]), int(match[2])
        if max(source, target) >= S or source == target:
            raise notation_error(text, expected, f"a transfer needs two different stands of 0..{S - 1}")
        action = layout.transfer_action(source, target)
    elif match := _PLACE.fullmatch(move):
        counts = Counter(int(ch) for ch in match[1])
        if max(counts) >= S:
            raise notation_error(text, expected, f"the stands are 0..{S - 1}")
        try:
            action = layout.placement_action(counts)
        except ValueError as error:
            raise notation_error(text, expected, str(error)) from None
    else:
        raise notation_error(text, expected)
    return state.check_legal(action, text)


def describe_action(state, action: int) -> str:
    """``action`` in words, each stand named by the mode (``stand_name``)."""
    return state.game.layout.describe(action, state.stand_name)
