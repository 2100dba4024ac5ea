"""Skybridge's scoring rules (seed and classic) as a function of the towers: what the state,
its pictures and the tests count points by (the bottom of the folder beside ``pieces.py``)."""

from __future__ import annotations

from sky_envs.games.skybridge.pieces import BRIDGE, EMPTY, OPPOSITE, ROOF


def scores(game, stacks: list[list[int]], heights: list[int], kinds: list[int], colours: list[int]) -> list[int]:
    """Points per seat by the variant's scoring: ``stacks`` the towers' pieces bottom to top,
    ``heights``, ``kinds`` and ``colours`` each tower's height and top piece's kind and colour."""
    seat_of = game.colour_seat
    out = [0] * game.num_players
    if not game.classic:
        for i, kind in enumerate(kinds):
            if kind == EMPTY or seat_of[colours[i]] < 0:
                continue
            points = heights[i]
            if kind >= BRIDGE:
                j = game.neighbour_at[i][kind - BRIDGE]
                if kinds[j] == BRIDGE + OPPOSITE[kind - BRIDGE]:  # the whole bridge is still on top
                    points *= 2
            out[seat_of[colours[i]]] += points
        return out
    roofer = [seat_of[colours[i]] if kinds[i] == ROOF else -1 for i in range(len(kinds))]
    for i, seat in enumerate(roofer):
        if seat >= 0:
            out[seat] += heights[i]
    for a, stack in enumerate(stacks):
        for piece in stack:
            kind = piece & 7
            if kind - BRIDGE not in (1, 2):  # each bridge once, from its west / north end
                continue
            seat = seat_of[piece >> 3]
            if seat < 0:
                continue
            b = game.neighbour_at[a][kind - BRIDGE]
            roofed_a, roofed_b = roofer[a] == seat, roofer[b] == seat
            if roofed_a and roofed_b:
                out[seat] += heights[a] + heights[b]
            elif roofed_a:
                out[seat] += heights[b]
            elif roofed_b:
                out[seat] += heights[a]
    return out
