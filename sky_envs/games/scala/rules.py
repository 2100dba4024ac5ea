"""Scala's rules on 88-bit masks: move generation, the connectivity (split) rule, and how a
game ends (the bottom of the folder beside the board and the compiled kernels).

Everything here is a pure function of the two colour masks, so the state, the legality
explanations and the tests share one implementation of each rule sentence.
"""

from __future__ import annotations

from sky_envs.games.scala.board import ADJ, FULL, JUMPS, NUM_CELLS, STEPS
from sky_envs.games.scala import kernels
from sky_envs.games.scala.kernels import HALF, HALF_BITS, components, moves_of

# how a finished game ended (``info()["end"]``)
END_GOAL = "goal"              # the winner's stone reached the goal it attacks
END_SPLIT = "split"            # the loser's move left no mixed group or tied biggest groups
END_NO_MOVE = "no_move"        # the loser had no legal move
END_MAX_TURNS = "max_turns"    # truncated: a draw

MOVER_LOSES, ILLEGAL = "mover_loses", "illegal"
SPLIT_RULES = (MOVER_LOSES, ILLEGAL)

# what settling the groups after a move gives
SPLIT_OK = "ok"                       # one group, or one biggest mixed group kept
NOTHING_LEFT = "nothing_left"         # rule 2: every group was one-coloured
TIE = "tie"                           # rule 4: two or more biggest mixed groups
LONE_COLOUR = "lone_colour"           # split_rule="illegal": the moved stone's group is one-coloured
#: the outcomes by the compiled settler's codes (``kernels.SETTLED`` ...)
OUTCOMES = (SPLIT_OK, NOTHING_LEFT, TIE, LONE_COLOUR)
assert (kernels.SETTLED, kernels.NOTHING_LEFT, kernels.TIE, kernels.LONE_COLOUR) == (0, 1, 2, 3)


def jump_targets(start: int, occ: int, colour: int) -> int:
    """Cells reachable from ``start`` by a chain of one or more jumps (``start`` itself included
    when a chain can come back to it). ``occ`` holds every stone, ``start``'s included; the
    start cell counts as empty during the chain; the goal ``colour`` defends is never entered."""
    table = JUMPS[colour]
    occ &= ~(1 << start)
    free = FULL & ~occ                # empty and not yet reached
    reach = 0
    todo = [start]
    while todo:
        for over_bit, land_bit, land in table[todo.pop()]:
            if occ & over_bit and free & land_bit:
                free ^= land_bit
                reach |= land_bit
                todo.append(land)
    return reach


def move_targets(start: int, occ: int, colour: int) -> int:
    """Legal end cells of the stone on ``start`` before the split rule: empty neighbours and
    jump-chain ends, never the start cell itself nor the goal ``colour`` defends."""
    return ((STEPS[colour][start] & ~occ) | jump_targets(start, occ, colour)) & ~(1 << start)


def all_targets(stones: int, occ: int, colour: int) -> dict[int, int]:
    """``move_targets`` of every stone in ``stones`` (those with at least one target), from
    the compiled move generator (see ``kernels.legal_moves``)."""
    return targets_by_start(moves_of(stones, occ, colour)[1])


def targets_by_start(actions) -> dict[int, int]:
    """``{start: mask of end cells}`` of a list of move actions (``start * 88 + end``)."""
    out: dict[int, int] = {}
    for action in actions.tolist():
        start, end = divmod(action, NUM_CELLS)
        out[start] = out.get(start, 0) | 1 << end
    return out


def after_move(blue: int, red: int, colour: int, start: int, end: int, rule: str) -> tuple[int, int, str]:
    """Move the stone and settle the groups (rules 1-4; see ``kernels.settle_move``). Returns
    the new masks and the outcome (``SPLIT_OK`` when the board is one group). Under
    ``split_rule="illegal"`` a non-OK outcome means the move is illegal; the masks are then
    those rules 1-4 would leave."""
    blue, red, outcome = kernels.after_move(blue, red, colour, start, end, rule == MOVER_LOSES)
    return blue, red, OUTCOMES[outcome]


def cuts(cell: int, occ: int) -> bool:
    """Whether the stones ``occ`` (``cell`` already emptied, and connected with it) might fall
    apart without ``cell``: False when the stones around ``cell`` stay linked among themselves,
    which is enough for the rest to stay connected. True means "check with ``components``"."""
    return not kernels.ring_linked(cell, occ & HALF, occ >> HALF_BITS)


def split_legal_targets(start: int, targets: int, blue: int, red: int, colour: int,
                        connected: bool = False) -> int:
    """Under ``split_rule="illegal"``: the subset of ``targets`` that do not break the split rule.
    ``connected``: the stones, the moving one included, are known to be one group (as at the
    start of every turn of a game), which lets most stones skip the search for groups."""
    rest = (blue | red) & ~(1 << start)    # the board without the moving stone
    groups = [rest] if connected and not cuts(start, rest) else components(rest)
    if len(groups) == 1:
        # the rest holds together: a target touching it keeps one group; a lone target would
        # strand the moved stone in a one-coloured group (or, with only one colour left on the
        # board, leave nothing mixed): illegal either way
        legal = 0
        t = targets
        while t:
            low = t & -t
            if ADJ[low.bit_length() - 1] & rest:
                legal |= low
            t ^= low
        return legal
    legal = 0                              # the rest falls apart: settle each move
    t = targets
    while t:
        low = t & -t
        if after_move(blue, red, colour, start, low.bit_length() - 1, ILLEGAL)[2] == SPLIT_OK:
            legal |= low
        t ^= low
    return legal
