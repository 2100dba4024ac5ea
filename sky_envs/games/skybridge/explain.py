"""Why a Skybridge action is illegal: the rule it breaks, in words (for error messages)."""

from __future__ import annotations

from sky_envs.games.skybridge.pieces import BRIDGE, KIND_NAMES, ROOF, SUP_OF_KIND, SUPPLY_NAMES, TALL


def _touch(state, colour: int, i: int, storeys: int) -> str:
    """The own-colour conflict of a piece of ``colour`` on tower ``i`` ('' if none)."""
    where = state.where
    if state.top_colour[i] == colour:
        return f"the top of {where(i)} is already colour {colour} (no piece directly on its own colour)"
    if state.game.classic:
        span = ((1 << storeys) - 1) << state.heights[i]
        for j in state.game.neighbours[i]:
            if state.occ[j][colour] & span:
                h = state.heights[i]
                return (f"at storeys {h}..{h + storeys} it would touch a colour {colour} piece on the adjacent "
                        f"{where(j)} (classic: one colour never touches itself)")
    return ""


def illegal_reason(state, action: int) -> str:
    game = state.game
    seat = state.current_player
    if seat < 0:
        return "the game is over"
    slot, kind, target = state.decode(action)
    if slot >= game.num_slots:
        return f"with {game.num_players} seats each seat has only colour slot 0 (actions < {game.slot_size})"
    colour = game.slot_colour[seat][slot]
    sup_index = SUP_OF_KIND[kind]
    if state.supply[seat][slot][sup_index] == 0:
        if game.initial_supply[seat][slot][sup_index] == 0:
            return f"player_{seat} gets no {SUPPLY_NAMES[sup_index]} of colour {colour} in this game"
        return f"player_{seat} has no {SUPPLY_NAMES[sup_index]} of colour {colour} left"
    where = state.where
    heights, kinds, colours = state.heights, state.top_kind, state.top_colour
    low = state.lowest_level()
    if kind == BRIDGE:
        a, b, _ = game.edges[target]
        for i in (a, b):
            if kinds[i] == ROOF:
                return f"the tower on {where(i)} is closed by a roof"
        if heights[a] != heights[b]:
            return f"a bridge needs two towers of equal height: {where(a)} is {heights[a]}, {where(b)} is {heights[b]}"
        if heights[a] == 0:
            return "a bridge needs towers of height >= 1, these foundations are empty"
        for i in (a, b):
            if kinds[i] >= BRIDGE:
                return f"the top of {where(i)} is a bridge: no bridge directly on a bridge"
        if not game.classic:
            if heights[a] != low:
                return f"seed: a bridge goes at the lowest level ({low}), these towers are {heights[a]} high"
            if colours[a] == colours[b]:
                return f"seed: a bridge joins towers of different top colours; both tops are colour {colours[a]}"
        for i in (a, b):
            why = _touch(state, colour, i, 1)
            if why:
                return why
        return "it is not one of the legal placements here"
    if kinds[target] == ROOF:
        return f"the tower on {where(target)} is closed by a roof: nothing goes on a roof"
    if kind == ROOF:
        if heights[target] == 0:
            return f"a roof needs a tower of height >= 1 and {where(target)} is empty"
        return _touch(state, colour, target, 1) or "it is not one of the legal placements here"
    storeys = 3 if kind == TALL else 2
    why = _touch(state, colour, target, storeys)
    allowed = [i for i in range(game.num_foundations) if kinds[i] != ROOF and not _touch(state, colour, i, storeys)]
    if why and (allowed or game.classic):
        return why
    m = min(heights[i] for i in allowed) if allowed else low
    if heights[target] != m:
        if allowed:
            example = next(i for i in allowed if heights[i] == m)
            return (f"a block goes on the lowest level where the own-colour rule allows it: height {m} "
                    f"(e.g. {where(example)}), but {where(target)} is {heights[target]} high")
        return (f"colour {colour} fits nowhere by the own-colour rule, so it goes on a tower of the lowest "
                f"height ({low}), but {where(target)} is {heights[target]} high")
    return f"the {KIND_NAMES[kind]} is not one of the legal placements here"
