"""Skybridge for the play page: the position as a scene (``board_scene``: the foundations
seen from above, named as in the notation, each tower drawn from the side inside its
foundation with its height, bridges across the gaps, every seat's supply beside the board),
where each legal action starts and ends (``action_ways``) and the result in words
(``result_words``).

A placement starts on the piece in the mover's supply (``p0:T2``: seat 0's tall blocks of
colour 2) and ends on a foundation; a bridge ends on either of its two foundations, so a
foundation with bridges towards several neighbours asks which one.
"""

from __future__ import annotations

from sky_envs.core import scene as sc
from sky_envs.core.notation import cell_name
from sky_envs.games.skybridge.pieces import BRIDGE, DIR_LETTERS, ROOF, SHORT, SUPPLY_LETTERS, TALL, piece_storeys

CELL, GAP, MARGIN = 96, 26, 30
SUPPLY_W = 250
_LETTER = {TALL: "T", SHORT: "S", ROOF: "R", BRIDGE: "B"}
_NAMES = {"T": "tall block", "S": "short block", "B": "bridge", "R": "roof"}


def _corner(r: int, c: int) -> tuple[float, float]:
    return MARGIN + c * (CELL + GAP), MARGIN + r * (CELL + GAP)


def _tower(state, i: int, x: float, y: float, unit: float) -> list[dict]:
    """Foundation ``i``'s square and its tower from the side, bottom to top."""
    shapes = [sc.rect(x, y, CELL, CELL, r=4, fill=sc.EMPTY, stroke=sc.INK_COLOUR, width=1)]
    bottom = y + CELL - 8
    left, width = x + 14, CELL - 28
    for piece in state.stacks[i]:
        colour, kind = divmod(piece, 8)
        fill = sc.COLOURS[colour]
        if kind == ROOF:
            shapes.append(sc.polygon([(left - 2, bottom), (left + width + 2, bottom), (left + width / 2, bottom - 14)],
                                     fill=fill, stroke=sc.INK_COLOUR, width=1))
            continue
        storeys = piece_storeys(kind)
        top = bottom - storeys * unit
        label = "B" + DIR_LETTERS[kind - BRIDGE] if kind >= BRIDGE else _LETTER[kind]
        shapes.append(sc.rect(left, top, width, storeys * unit, fill=fill, stroke=sc.INK_COLOUR, width=1,
                              label=label if storeys * unit >= 10 else None, label_size=min(11, storeys * unit - 1)))
        bottom = top
    if state.stacks[i]:
        shapes.append(sc.text(x + CELL - 4, y + 13, str(state.heights[i]), 12, anchor="end", bold=True,
                              fill=sc.INK_COLOUR))
    return shapes


def board_scene(state, shown_seats=None) -> dict:
    """The position as a scene (``sky_envs.core.scene``); nothing is hidden in this game."""
    game = state.game
    R, C = game.rows, game.cols
    unit = min(9.0, (CELL - 24) / max(1, max(state.heights)))
    items = []
    for i in range(game.num_foundations):
        r, c = divmod(i, C)
        x, y = _corner(r, c)
        pieces = " ".join(_piece_words(p) for p in state.stacks[i]) or "empty"
        items.append(sc.thing(cell_name(r, c), _tower(state, i, x, y, unit),
                              f"{cell_name(r, c)}: height {state.heights[i]}, bottom to top: {pieces}"))
    items += _bridges(state)
    items += sc.edge_labels(R, C, lambda r, c: (_corner(r, c)[0] + CELL / 2, _corner(r, c)[1] + CELL / 2),
                            CELL / 2 + 15, size=13)
    board_w = 2 * MARGIN + C * CELL + (C - 1) * GAP
    board_h = 2 * MARGIN + R * CELL + (R - 1) * GAP
    supply, supply_h = _supplies(state, board_w + 10)
    seats = [sc.seat_entry(s, list(game.slot_colour[s]), "+".join(map(str, game.slot_colour[s])))
             for s in range(game.num_players)]
    scores = ", ".join(f"player_{s} {v}" for s, v in enumerate(state.scores()))
    who = f"player_{state.current_player} to place" if state.current_player >= 0 else "game over"
    return sc.scene(board_w + 10 + SUPPLY_W, max(board_h, supply_h), items + supply, seats,
                    f"{who} | {game.variant} scoring: {scores}")


def _piece_words(piece: int) -> str:
    colour, kind = divmod(piece, 8)
    if kind >= BRIDGE:
        return f"colour {colour} bridge end ({DIR_LETTERS[kind - BRIDGE]})"
    return f"colour {colour} {_NAMES[_LETTER[kind]]}"


def _bridges(state) -> list[dict]:
    """Each bridge as a deck across the gap between its foundations, drawn from its w / n end."""
    game = state.game
    items = []
    for a, stack in enumerate(state.stacks):
        r, c = divmod(a, game.cols)
        x, y = _corner(r, c)
        for k, piece in enumerate(stack):
            colour, kind = divmod(piece, 8)
            offset = 6 * (k % 3)
            if kind == BRIDGE + 1:      # towards the east
                items.append(sc.rect(x + CELL - 4, y + CELL / 2 - 8 + offset, GAP + 8, 12, fill=sc.COLOURS[colour],
                                     stroke=sc.INK_COLOUR, width=1))
            elif kind == BRIDGE + 2:    # towards the south
                items.append(sc.rect(x + CELL / 2 - 8 + offset, y + CELL - 4, 12, GAP + 8, fill=sc.COLOURS[colour],
                                     stroke=sc.INK_COLOUR, width=1))
    return items


def _supplies(state, left: float) -> tuple[list[dict], float]:
    """Every seat's pieces: one thing per piece kind and colour, with the count left."""
    game = state.game
    items, y = [], MARGIN - 10
    for seat in range(game.num_players):
        mover = seat == state.current_player
        items.append(sc.text(left, y + 12, f"player_{seat}" + (" to place" if mover else ""), 13, anchor="start",
                             bold=mover, fill=sc.INK_COLOUR))
        y += 20
        for slot, colour in enumerate(game.slot_colour[seat]):
            for k, letter in enumerate(SUPPLY_LETTERS):
                count = state.supply[seat][slot][k]
                x = left + k * 58
                shapes = [sc.rect(x, y, 52, 34, r=5, fill="#ffffff" if count else "#ececec", stroke="#b0a890", width=1)]
                shapes += _icon(letter, x + 6, y + 5, sc.COLOURS[colour] if count else sc.GREY)
                shapes.append(sc.text(x + 47, y + 28, f"×{count}", 11, anchor="end", fill=sc.INK_COLOUR))
                items.append(sc.thing(f"p{seat}:{letter}{colour}", shapes,
                                      f"player_{seat}'s {_NAMES[letter]}s of colour {colour}: {count} left"))
            y += 40
        y += 8
    return items, y + MARGIN


def _icon(letter: str, x: float, y: float, fill: str) -> list[dict]:
    style = {"fill": fill, "stroke": sc.INK_COLOUR, "width": 1}
    if letter == "T":
        return [sc.rect(x, y, 14, 24, **style)]
    if letter == "S":
        return [sc.rect(x, y + 8, 14, 16, **style)]
    if letter == "B":
        return [sc.rect(x, y + 14, 22, 8, **style)]
    return [sc.polygon([(x, y + 22), (x + 18, y + 22), (x + 9, y + 8)], **style)]


def action_ways(state, actions) -> list[list[tuple[str | None, str]]]:
    """For each action: ``[(supply piece, foundation)]``, both ends of a bridge as two ways."""
    game = state.game
    seat = state.current_player if state.current_player >= 0 else state.to_move
    name = lambda i: cell_name(*divmod(i, game.cols))  # noqa: E731
    ways = []
    for action in map(int, actions):
        slot, kind, target = state.decode(action)
        colours = game.slot_colour[seat]
        origin = f"p{seat}:{_LETTER[kind]}{colours[slot] if slot < len(colours) else '?'}"
        if kind == BRIDGE:
            a, b, _ = game.edges[target]
            ways.append([(origin, name(a)), (origin, name(b))])
        else:
            ways.append([(origin, name(target))])
    return ways


def result_words(state) -> str:
    """Who won and why, by the variant's scoring."""
    if not state.is_terminal():
        return f"The game was cut at max_turns={state.game.max_turns} pieces: a draw."
    scores = state.scores()
    winners = state.winners()
    tally = ", ".join(f"player_{s} {v}" for s, v in enumerate(scores))
    if state.game.classic:
        rule = ("Classic scoring: a roofed tower scores its height for the seat of its roof, and a bridge adds the "
                "other tower's height when its seat roofed one end (both ends roofed: both count double)")
    else:
        rule = ("Seed scoring: each tower scores its height for the seat playing its top piece's colour, and a "
                "bridge still on top of both its towers scores twice their heights")
    head = f"No seat can place a piece any more. {rule}. Points: {tally}."
    if len(winners) == len(scores):
        return f"{head} Everyone has {scores[0]}: a draw."
    who = " and ".join(f"player_{s}" for s in winners)
    return f"{head} {who} {'wins' if len(winners) == 1 else 'share the win'} with {scores[winners[0]]}."
