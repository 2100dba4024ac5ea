"""Highrise Heist and Golden Rush for the play page: the position as a scene
(``board_scene``: the stands as columns of blocks numbered as in the notation, the golden
stand / centre marked, closed stands on their owner's base), where each legal action starts
and ends (``action_ways``) and the result in words (``result_words``).

A transfer starts on its source stand and ends on its target stand. A placement on one
stand starts on the mover's supply (drawn beside the stands) and ends on the stand, so the
choice of 1, 2 or 3 blocks follows; a placement on two stands starts on either of them and
ends on the other (then the choice of (1,1), (1,2) or (2,1)). "No transfer" and the swap
are buttons under the stands.
"""

from __future__ import annotations

from sky_envs.core import scene as sc
from sky_envs.games.highrise_heist.render import status_line
from sky_envs.games.highrise_heist.rules import GOLDEN, HEIGHT, PLACE, TRANSFER

STAND_W, BLOCK_H, GAP = 34, 16, 12
MARGIN, TOP = 20, 16
BASE_H = 22


def _is_rush(state) -> bool:
    return state.num_players == 4


def _capacities(state) -> list[int]:
    return state.capacities() if _is_rush(state) else [HEIGHT] * len(state.stands)


def _arm_label(stand: int) -> str:
    """Golden Rush's arm of ``stand``: ``p0 near``, ``p0 far`` (the centre has none)."""
    return f"p{(stand - 1) // 2} {'near' if stand % 2 else 'far'}" if stand else "centre"


def _stand_x(stand: int) -> float:
    return MARGIN + stand * (STAND_W + GAP)


def board_scene(state, shown_seats=None) -> dict:
    """The position as a scene (``sky_envs.core.scene``); nothing is hidden in these games."""
    rush = _is_rush(state)
    caps = _capacities(state)
    base_y = TOP + HEIGHT * BLOCK_H
    items = []
    for s, column in enumerate(state.stands):
        x = _stand_x(s)
        owner = state.owner(s)
        golden = s == GOLDEN
        shapes = [sc.rect(x, TOP, STAND_W, HEIGHT * BLOCK_H, fill="#f1ece0", stroke="#c9c0ad", width=1)]
        if caps[s] < HEIGHT:    # a level no block may reach now (Golden Rush's capacities)
            shapes.append(sc.rect(x, TOP, STAND_W, (HEIGHT - caps[s]) * BLOCK_H, fill="#b9b9b9", opacity=0.6))
        for level, colour in enumerate(column):
            shapes.append(sc.rect(x + 2, base_y - (level + 1) * BLOCK_H + 1, STAND_W - 4, BLOCK_H - 2, r=2,
                                  fill=sc.COLOURS[colour], stroke=sc.INK_COLOUR, width=0.8))
        if owner >= 0:
            base_fill, base_label = sc.COLOURS[owner], "★" if golden else "■"
        else:
            base_fill, base_label = (sc.GOLD if golden else sc.GREY), "★" if golden else ""
        shapes.append(sc.rect(x, base_y + 2, STAND_W, BASE_H - 4, r=3, fill=base_fill, stroke=sc.INK_COLOUR,
                              width=2 if golden else 1, label=base_label, label_size=13))
        shapes.append(sc.text(x + STAND_W / 2, base_y + BASE_H + 14, str(s), 14, bold=True, fill=sc.INK_COLOUR))
        if rush:
            arm_fill = sc.COLOURS[(s - 1) // 2] if s else sc.INK_COLOUR
            shapes.append(sc.text(x + STAND_W / 2, base_y + BASE_H + 28, _arm_label(s), 9, fill=arm_fill))
        words = f"stand {state.stand_name(s)}: {len(column)} block{'s' if len(column) != 1 else ''}"
        if owner >= 0:
            words += f", closed, owned by player_{owner}"
        elif caps[s] < HEIGHT:
            words += f", holds {caps[s]} now"
        items.append(sc.thing(f"stand:{s}", shapes, words))
    right = _stand_x(len(state.stands)) + 10
    items += _controls(state, right, base_y)
    seats = [sc.seat_entry(s, [s], state.game.letters[s]) for s in range(state.num_players)]
    height = base_y + BASE_H + (36 if rush else 22)
    return sc.scene(right + 120, height, items, seats, status_line(state))


def _controls(state, x: float, base_y: float) -> list[dict]:
    """The mover's supply of blocks, and the buttons for "no transfer" and the swap."""
    seat = state.current_player
    placing = seat >= 0 and state.phase == PLACE
    fill = sc.COLOURS[seat] if placing else "#d8d8d8"
    pile = [sc.rect(x, base_y - 80, 100, 90, r=8, fill="#f7f4ec", stroke="#c9c0ad", width=1),
            sc.text(x + 50, base_y - 62, "supply", 12, fill=sc.INK_COLOUR)]
    for k in range(3):
        pile.append(sc.rect(x + 33, base_y - (k + 1) * BLOCK_H - 2, STAND_W, BLOCK_H - 2, r=2, fill=fill,
                            stroke=sc.INK_COLOUR, width=0.8))
    items = [sc.thing("supply", pile, f"player_{seat}'s blocks: place 1 to 3" if placing else "the supply of blocks")]
    if seat >= 0 and state.phase == TRANSFER:
        items.append(sc.thing("pass", [sc.rect(x, TOP, 100, 30, r=6, fill="#ffffff", stroke=sc.INK_COLOUR,
                                               label="no transfer", label_size=12)], "no transfer: go on to the placement"))
        if state.swap_legal():
            items.append(sc.thing("swap", [sc.rect(x, TOP + 40, 100, 30, r=6, fill="#ffffff", stroke=sc.INK_COLOUR,
                                                   label="swap colours", label_size=12)],
                                  "swap: every block changes colour (pie rule)"))
    return items


def action_ways(state, actions) -> list[list[tuple[str | None, str]]]:
    """For each action: ``[(origin, target), ...]`` (two ways for a placement on two stands)."""
    layout = state.game.layout
    S = layout.num_stands
    ways = []
    for action in map(int, actions):
        if action < layout.no_transfer:
            source, target = divmod(action, S)
            ways.append([(f"stand:{source}", f"stand:{target}")])
        elif action == layout.no_transfer:
            ways.append([(None, "pass")])
        elif action == layout.swap:
            ways.append([(None, "swap")])
        else:
            parts = layout.placements[action - layout.single]
            if len(parts) == 1:
                ways.append([("supply", f"stand:{parts[0][0]}")])
            else:
                (s, _), (t, _) = parts
                ways.append([(f"stand:{s}", f"stand:{t}"), (f"stand:{t}", f"stand:{s}")])
    return ways


def result_words(state) -> str:
    """Who won and why: closed stands and the golden tie-break (2 seats), points (4 seats)."""
    if not state.is_terminal():
        return f"The game was cut at max_turns={state.game.max_turns} turns: a draw."
    if _is_rush(state):
        return _rush_words(state)
    counts = state.closed_counts()
    w = state.winner()
    left = len(state.stands) - sum(counts)
    golden = state.owner(GOLDEN)
    head = f"player_{w} wins with {counts[w]} closed stands against {counts[1 - w]}"
    if counts[w] == counts[1 - w]:
        return f"{head}: at {counts[w]}:{counts[w]} the owner of the golden stand ★ wins, and that is player_{golden}."
    if left:
        reach = counts[1 - w] + left
        why = (f"even closing all {left} open stands would bring player_{1 - w} to {reach}, "
               + ("level, and the golden stand ★ is player_" + str(golden) + "'s" if reach == counts[w] else "still behind"))
        return f"{head}: the game ends as soon as the result cannot change, and {why}."
    return f"{head}: every stand is closed."


def _rush_words(state) -> str:
    scores = state.scores()
    winners = state.winners()
    tally = ", ".join(f"player_{s} {scores[s]}" for s in range(state.num_players))
    rule = ("Points: 1 per block of your colour, 5 per closed near stand you own, 8 per far one, "
            "15 for the centre (its owner is the first seat whose two arm stands closed)")
    if state.game.mode == "teams":
        totals = state.team_scores()
        rule += "; teams add their members' points, 5 more each when both members' arms are closed"
        if not winners:
            return f"Every stand is closed. {rule}. Team totals {totals[0]} and {totals[1]}: a draw ({tally})."
        return (f"Every stand is closed. {rule}. The team of player_{winners[0]} and player_{winners[1]} "
                f"wins, {max(totals)} to {min(totals)} ({tally}).")
    who = " and ".join(f"player_{s}" for s in winners)
    verb = "wins" if len(winners) == 1 else "share the win"
    return f"Every stand is closed. {rule}. {who} {verb} with {scores[winners[0]]} points ({tally})."
