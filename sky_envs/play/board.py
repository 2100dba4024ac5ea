"""The board the play page draws and clicks: a game's scene, where each legal move starts
and ends, the last move, and the result in words.

Each built-in game has a ``board_view.py`` beside the module of its ``Game`` class with
three functions: ``board_scene(state, shown_seats)`` (the position as a scene, see
:mod:`sky_envs.core.scene`), ``action_ways(state, actions)`` (for each action the list of
``(origin, target)`` pairs of thing ids a player may click to play it; ``origin`` ``None``
for a move played by clicking its target alone) and ``result_words(state)`` (who won and
why). :func:`board_view_of` finds that module the same way for any registered game; a game
without one gets :class:`GenericView`: its text board as cells, and one button per legal
move, so every registered game can be played by clicks.
"""

from __future__ import annotations

import importlib
from typing import Any

from sky_envs.core import scene as sc

VIEW_MODULE = "board_view"


class GenericView:
    """The fallback view of a game without ``board_view.py``: the text board as a grid of
    cells (one per whitespace-separated word) and every legal move a button under it."""

    CELL, BUTTON_W, BUTTON_H, PER_ROW = 34, 120, 30, 5

    def __init__(self, game):
        self.game = game

    def board_scene(self, state, shown_seats=None) -> dict:
        lines = [line.split() for line in state.render_text().splitlines()]
        width = max([len(words) for words in lines] + [1])
        cell = self.CELL
        items = []
        for r, words in enumerate(lines):
            for c, word in enumerate(words):
                items.append(sc.rect(10 + c * cell, 10 + r * cell, cell - 2, cell - 2, fill=sc.EMPTY, stroke="#b0a890",
                                     width=1, label=word[:6], label_size=11 if len(word) < 4 else 8))
        y = 20 + len(lines) * cell
        actions = [int(a) for a in state.legal_actions()] if state.current_player >= 0 else []
        for k, action in enumerate(actions):
            row, col = divmod(k, self.PER_ROW)
            x, top = 10 + col * (self.BUTTON_W + 8), y + row * (self.BUTTON_H + 8)
            items.append(sc.thing(f"action:{action}", [sc.rect(x, top, self.BUTTON_W, self.BUTTON_H, r=6, fill="#ffffff",
                                                               stroke=sc.INK_COLOUR, label=state.action_to_string(action)[:16],
                                                               label_size=12)], state.describe_action(action)))
        rows = -(-len(actions) // self.PER_ROW)
        seats = [sc.seat_entry(s, [s] if s < len(sc.COLOURS) else []) for s in range(self.game.num_players)]
        return sc.scene(max(20 + width * cell, 20 + self.PER_ROW * (self.BUTTON_W + 8)),
                        y + rows * (self.BUTTON_H + 8) + 10, items, seats)

    def action_ways(self, state, actions) -> list[list[tuple[str | None, str]]]:
        return [[(None, f"action:{int(a)}")] for a in actions]

    def result_words(self, state) -> str:
        return ""


def board_view_of(game) -> Any:
    """The ``board_view`` module beside ``game``'s class module, or a :class:`GenericView`."""
    package = type(game).__module__.rpartition(".")[0]
    if package:
        try:
            return importlib.import_module(f"{package}.{VIEW_MODULE}")
        except ModuleNotFoundError as error:
            if error.name != f"{package}.{VIEW_MODULE}":
                raise
    return GenericView(game)


def move_choices(view, state, actions: list[int]) -> list[dict[str, Any]]:
    """The legal moves as the page offers them: ``{"action", "text", "words", "ways"}``."""
    ways = view.action_ways(state, actions)
    return [{"action": int(a), "text": state.action_to_string(int(a)), "words": state.describe_action(int(a)),
             "ways": [[origin, target] for origin, target in way]}
            for a, way in zip(actions, ways)]


def move_ids(view, before, action: int) -> list[str]:
    """The things a move played in ``before`` started and ended on (the last-move marks)."""
    ids = []
    for origin, target in view.action_ways(before, [int(action)])[0]:
        for thing_id in (origin, target):
            if thing_id is not None and thing_id not in ids:
                ids.append(thing_id)
    return ids


def board_fields(view, state, shown_seats, last: tuple[Any, int] | None = None) -> dict[str, Any]:
    """The board part of the page's state: the scene (hands shown for ``shown_seats``, every
    hand for ``None``), the things the last move touched (``last``: the state it was played
    in and its action) and, once the game is over, the result in words."""
    return {"board": view.board_scene(state, shown_seats),
            "last_move_ids": [] if last is None else move_ids(view, *last),
            "result_words": view.result_words(state) if state.current_player < 0 else ""}


def players_json(scene: dict[str, Any], names: list[str], roles: list[str]) -> list[dict[str, Any]]:
    """One entry per seat: its name, who plays it, its role on the page and its colours."""
    entries = {entry["seat"]: entry for entry in scene.get("seats", [])}
    return [{"seat": seat, "name": f"player_{seat}", "by": names[seat], "role": roles[seat],
             "colours": entries.get(seat, {}).get("colours", []), "label": entries.get(seat, {}).get("label", "")}
            for seat in range(len(names))]
