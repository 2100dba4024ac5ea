"""Sky Scrapers for the play page: the position as a scene (``board_scene``: square or hex
cells named as in the notation, stacks in their top tile's colour labelled by height), where
each legal action starts and ends (``action_ways``) and the result in words (``result_words``).

A move starts on its stack's cell and ends on the cell it lands on; a placement is a click
on its empty cell; the colour choice of a random set-up a click on a swatch under the board.
"""

from __future__ import annotations

from sky_envs.core import scene as sc
from sky_envs.core.notation import cell_name
from sky_envs.games.sky_scrapers.rules import CHOOSE, COLOUR_LETTERS, MOVE, PLACE

CELL = 40          # drawing units per cell
MARGIN = 34        # room for the coordinates
SWATCH_ROW = 46    # room under the board for the colour choice


def _centre(state):
    hex_board = state.board.lines == "hex"

    def centre(r: int, c: int) -> tuple[float, float]:
        if hex_board:
            return MARGIN + CELL * (c + r / 2 + 0.5), MARGIN + CELL * 0.866 * r + CELL / 2
        return MARGIN + CELL * (c + 0.5), MARGIN + CELL * (r + 0.5)

    return centre


def _owner_words(state, colour: int) -> str:
    seats = [f"player_{s}" for s, c in enumerate(state.seat_colours) if c == colour]
    return f"colour {COLOUR_LETTERS[colour]}" + (f" ({seats[0]})" if seats else "")


def board_scene(state, shown_seats=None) -> dict:
    """The position as a scene (``sky_envs.core.scene``); nothing is hidden in this game."""
    board = state.board
    rows, cols = board.rows, board.cols
    hex_board = board.lines == "hex"
    centre = _centre(state)
    tall = state.game.skyscraper_height
    items = []
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if not board.cells[i]:
                continue
            x, y = centre(r, c)
            height = int(state.heights[i])
            name = cell_name(r, c)
            outline = {"stroke": sc.INK_COLOUR, "width": 1}
            base = (sc.polygon(sc.hexagon(x, y, CELL - 1), fill=sc.EMPTY, **outline) if hex_board
                    else sc.rect(x - CELL / 2 + 1, y - CELL / 2 + 1, CELL - 2, CELL - 2, fill=sc.EMPTY, **outline))
            shapes = [base]
            title = f"{name}: empty"
            if height:
                colour = int(state.tops[i])
                fill = sc.COLOURS[colour]
                star = height >= tall
                shapes.append(sc.circle(x, y, CELL * 0.36, fill=fill, stroke=sc.GOLD if star else sc.INK_COLOUR,
                                        width=4 if star else 1, label=f"{height}{'★' if star else ''}",
                                        label_size=15 if height < 10 else 12, bold=True))
                title = (f"{name}: a stack of {height} topped by {_owner_words(state, colour)}"
                         + (" — a sky scraper" if star else ""))
            items.append(sc.thing(name, shapes, title))
    items += sc.edge_labels(rows, cols, centre, CELL * 0.78, size=12)
    right = max(centre(r, cols - 1)[0] for r in range(rows)) + CELL / 2 + MARGIN
    bottom = centre(rows - 1, 0)[1] + CELL / 2 + MARGIN
    if state.phase == CHOOSE and state.current_player >= 0:
        items.append(sc.text(MARGIN, bottom + 8, f"player_{state.current_player} chooses a colour:", 13,
                             anchor="start", fill=sc.INK_COLOUR))
        for k, letter in enumerate("ab"):
            x = MARGIN + 190 + k * 70
            items.append(sc.thing(f"colour:{letter}", [
                sc.rect(x, bottom - 10, 60, 28, r=6, fill=sc.COLOURS[k], stroke=sc.INK_COLOUR,
                        label=f"play {letter}", label_size=13)], f"choose colour {letter}"))
        bottom += SWATCH_ROW
    seats = [sc.seat_entry(s, [int(c)] if c >= 0 else [], COLOUR_LETTERS[c] if c >= 0 else "?")
             for s, c in enumerate(state.seat_colours)]
    return sc.scene(right, bottom, items, seats, _caption(state))


def _caption(state) -> str:
    counts, _ = state.skyscrapers()
    if state.current_player < 0:
        return f"game over | sky scrapers per seat {counts}"
    verb = {MOVE: "move a stack", PLACE: "place a tile", CHOOSE: "choose a colour"}[state.phase]
    return f"player_{state.current_player} to {verb} | sky scrapers per seat {counts}"


def action_ways(state, actions) -> list[list[tuple[str | None, str]]]:
    """For each action: ``[(origin, target)]``, the ids of the things it starts and ends on."""
    board = state.board
    B, cols = board.size, board.cols
    ways = []
    for action in map(int, actions):
        if action < 8 * B:
            origin, direction = divmod(action, 8)
            landing = board.target(int(state.heights[origin]), origin, direction)
            target = landing if landing < B else origin
            ways.append([(cell_name(*divmod(origin, cols)), cell_name(*divmod(target, cols)))])
        elif action < 9 * B:
            ways.append([(None, cell_name(*divmod(action - 8 * B, cols)))])
        else:
            ways.append([(None, f"colour:{COLOUR_LETTERS[action - 9 * B]}")])
    return ways


def result_words(state) -> str:
    """Who won and why, by the rule of the most sky scrapers, then the tallest one."""
    if not state.is_terminal():
        return f"The game was cut at max_turns={state.game.max_turns} moves: a draw."
    counts, tallest = state.skyscrapers()
    tall = state.game.skyscraper_height
    seats = range(state.num_players)
    names = [f"player_{s} ({COLOUR_LETTERS[state.seat_colours[s]]})" for s in seats]
    tally = ", ".join(f"{names[s]} {counts[s]}" for s in seats)
    head = f"No stack can move any more. Sky scrapers (stacks of {tall} or more) per seat: {tally}."
    winners = state.winners()
    if max(counts) == 0:
        return f"{head} Nobody built a sky scraper: a draw."
    if len(winners) == state.num_players or len(winners) > 1:
        who = " and ".join(names[s] for s in winners)
        return f"{head} {who} tie on sky scrapers and on the tallest one ({tallest[winners[0]]} high): they share the win."
    w = winners[0]
    rivals = [s for s in seats if s != w and counts[s] == counts[w]]
    if not rivals:
        return f"{head} {names[w]} wins with the most sky scrapers."
    best_rival = max(tallest[s] for s in rivals)
    return (f"{head} Tied on {counts[w]} sky scrapers, {names[w]} wins with the tallest one: "
            f"{tallest[w]} high against {best_rival}.")
