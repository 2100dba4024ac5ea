"""Why a Scala action is illegal: the rule it breaks, in words (for error messages)."""

from __future__ import annotations

from sky_envs.games.scala.board import CELL_NAMES, COLOUR_NAMES, DEFENDED_GOAL, NUM_CELLS, STONE_LETTERS
from sky_envs.games.scala.rules import ILLEGAL, LONE_COLOUR, NOTHING_LEFT, TIE, after_move, move_targets


def illegal_reason(state, action: int) -> str:
    if not 0 <= action < state.game.num_actions:
        return f"actions are 0..{state.game.num_actions - 1}"
    if state.current_player < 0:
        return "the game is over"
    colour = state.current_player
    start, end = divmod(action, NUM_CELLS)
    s, e = CELL_NAMES[start], CELL_NAMES[end]
    me = f"{COLOUR_NAMES[colour]} ({STONE_LETTERS[colour]})"
    blue, red = state.stones
    occ = blue | red
    if not state.stones[colour] >> start & 1:
        if state.stones[1 - colour] >> start & 1:
            return f"the stone on {s} is {COLOUR_NAMES[1 - colour]}'s; player_{colour} moves {me} stones"
        return f"there is no stone on {s}"
    if start == end:
        return "a move must end on another cell than it starts from"
    if occ >> end & 1:
        return f"{e} is occupied: a stone steps or jumps only onto an empty cell"
    if end == DEFENDED_GOAL[colour]:
        return f"{e} is the goal {me} defends: its stones may never enter it"
    if not move_targets(start, occ, colour) >> end & 1:
        return (f"{e} is neither an empty neighbour of {s} nor the end of a chain of jumps from {s} "
                f"(each jump goes over an adjacent stone to the empty cell right behind it)")
    _, _, outcome = after_move(blue, red, colour, start, end, ILLEGAL)
    why = {
        NOTHING_LEFT: "only one-coloured groups, which would all be removed (rule 2)",
        TIE: "two or more mixed groups tied for biggest (rule 4)",
        LONE_COLOUR: "the moved stone in a one-coloured group",
    }.get(outcome, "an illegal split")
    return f"with split_rule='illegal' a move may not split the stones into {why}"
