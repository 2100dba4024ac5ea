"""Why a Sky Scrapers action is illegal: the rule it breaks, in words (for error messages)."""

from __future__ import annotations

from sky_envs.core.boards import DIRECTION_NAMES
from sky_envs.games.sky_scrapers.rules import CHOOSE, COLOUR_LETTERS, PLACE


def illegal_reason(state, action: int) -> str:
    B = state.board.size
    seat = state.current_player
    if state.phase == CHOOSE:
        return "player_%d must first choose a colour (actions %d, %d)" % (seat, 9 * B, 9 * B + 1)
    if state.phase == PLACE:
        if not 8 * B <= action < 9 * B:
            return "tiles are still being placed: only placements on empty cells are legal"
        cell = action - 8 * B
        return "that cell is not on the board" if not state.board.cells[cell] else "that cell already holds a tile"
    if action >= 8 * B:
        return "placements and colour choices are over: only stack moves are legal"
    origin, d = divmod(action, 8)
    if not state.board.cells[origin]:
        return "there is no board cell there"
    if state.heights[origin] == 0:
        return "there is no stack on that cell"
    if state.tops[origin] != state.seat_colours[seat]:
        return f"the stack there is colour {COLOUR_LETTERS[state.tops[origin]]}, not yours"
    h = int(state.heights[origin])
    target = state.board.target(h, origin, d)
    if target == B:
        return f"a stack of height {h} must move exactly {h} cells and that path leaves the board, crosses a hole or is not a line of this board"
    return f"a stack must land on a tile or stack, and the cell {h} steps {DIRECTION_NAMES[d]} is empty"
