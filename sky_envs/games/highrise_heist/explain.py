"""Why an action is illegal in either mode, in words: the rules stated again, independently
of the lookup tables and slowly (the tests hold the two against each other on every action
of many positions). The modes' own height rules and stand names come from their hooks
(``transfer_height_problem``, ``placement_height_problem``, ``stand_name``)."""

from __future__ import annotations

from sky_envs.games.highrise_heist.rules import HEIGHT, TRANSFER, top_group


def illegal_reason(state, action: int) -> str:
    layout = state.game.layout
    action = int(action)
    if state.current_player < 0:
        return "the game is over"
    if not 0 <= action < layout.size:
        return f"it is out of range: expected 0 <= action < {layout.size}"
    reason = rule_violation(state, action)
    return reason or "it is not one of the legal actions in this position"


def rule_violation(state, action: int) -> str | None:
    """Why ``action`` breaks a rule in this position, or None if it is legal.

    An independent, slower statement of the rules: the tests check that it agrees with
    the legal mask on every action of many positions.
    """
    layout = state.game.layout
    if state.current_player < 0:
        return "the game is over"
    if action == layout.swap:
        if state.swap_legal():
            return None
        return ("the swap is only available to player_1 on its first turn (turn 1), "
                "instead of its transfer")
    if state.phase == TRANSFER:
        if action >= layout.single:
            return ("it is the transfer phase: first choose a transfer or "
                    f"{layout.no_transfer} (no transfer); blocks are placed afterwards")
        if action == layout.no_transfer:
            return None
        return _transfer_problem(state, *divmod(action, layout.num_stands))
    if action <= layout.no_transfer:
        return "it is the placement phase: this turn's transfer phase is over"
    return _placement_problem(state, layout.placements[action - layout.single])


def _transfer_problem(state, source: int, target: int) -> str | None:
    stands = state.stands
    name = state.stand_name
    if source == target:
        return "a transfer needs two different stands"
    if state.is_closed(source):
        return f"stand {name(source)} is closed (11 blocks): nothing may be taken from it"
    if not stands[source]:
        return f"stand {name(source)} is empty: there is no group to transfer"
    if state.is_closed(target):
        return f"stand {name(target)} is closed (11 blocks): nothing may be put on it"
    colour, size = top_group(stands[source])
    if stands[target] and stands[target][-1] != colour:
        return (f"the group is colour {colour} but stand {name(target)}'s top block is colour "
                f"{stands[target][-1]}: a group may only go onto an empty stand or onto its own colour")
    return state.transfer_height_problem(colour, size, target)


def _placement_problem(state, parts: tuple[tuple[int, int], ...]) -> str | None:
    name = state.stand_name
    total = sum(count for _, count in parts)
    if total > state.max_blocks():
        return f"this placement puts down {total} blocks but at most {state.max_blocks()} are allowed now"
    limits = state.placement_limits()
    for stand, count in parts:
        if state.is_closed(stand):
            return f"stand {name(stand)} is closed (11 blocks): nothing may be placed on it"
        height = len(state.stands[stand]) + count
        if height > limits[stand]:
            return state.placement_height_problem(stand, height, limits[stand])
    if state.one_closure_only() and len(parts) == 2 and all(
            len(state.stands[s]) + k == HEIGHT for s, k in parts):
        return "a placement may close at most one stand (at most one closure per turn)"
    return None
