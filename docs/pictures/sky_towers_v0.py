"""Pictures of the Sky Towers docs page (docs/envs/sky_towers_v0.md), 2 players with the
default deck: the start, a completed tower with blocking, dismantling, the card effects
(2 exchange, 3 peek, 4 rush, 5 return, 6 ask, 7 open, 8/9 on another row) and a finished
game. Each picture shows what ``rgb_array`` shows: the hand of the seat that decides."""

from __future__ import annotations

from collections import Counter

import numpy as np

import sky_envs
from _helpers import played_picture

ENV = "sky_towers_v0"


def all_cards() -> Counter:
    """Every card of the default deck, by value (the hands and deck of a fresh deal)."""
    text = sky_envs.make_game(ENV).new_initial_state(np.random.default_rng(0)).to_text()
    fields = dict(line.split(": ", 1) for line in text.splitlines())
    return Counter(int(v) for key in ("deck", "hand0", "hand1") for v in fields[key].split())


def position(hand0: str, hand1: str, row0: str = "-", row1: str = "-", pile0: str = "-", pile1: str = "-",
             deck_top: str = "", turn_of: int = 0, actions: int = 2, cards: str = "up up") -> str:
    """A 2-player position in the main phase; the deck is ``deck_top`` (top first) over
    every card not placed elsewhere, in value order."""
    used = Counter(int(v) for field in (hand0, hand1, row0, row1, pile0, pile1, deck_top)
                   for v in field.replace(".", " ").split() if v != "-")
    rest = all_cards() - used
    deck = deck_top.split() + [str(v) for v in sorted(rest.elements())]
    return "\n".join([
        "players: 2", "slots: 12", "turns: 12", f"turn_of: {turn_of}", "phase: main", f"actions: {actions}",
        "end: -", "final: no", "completed: 0", f"action_cards: {cards}",
        "bonuses: big_ben=- sky=- triple=- romance=- lucky=- real_estate_king=- perfect=-",
        "deck: " + " ".join(deck), "open: -", "discards: -",
        f"hand0: {hand0}", f"hand1: {hand1}", f"row0: {row0}", f"row1: {row1}",
        f"pile0: {pile0}", f"pile1: {pile1}",
    ])


# player_1's outer towers show a 2 and an 8 on top: player_0 may build neither
BUILD = position("1 4 6 7 7", "3 5 6 10 10", row0="10.5.5 3.9.7", row1="9.2 8", pile1="10.4.7")
RUSH = position("4 4 4 4 6", "1 3 5 9 10", row0="3.2", row1="10.1 7")
CHAOS = position("1 5 9 10 10", "2 3 7 8 8", row0="10.3", row1="6.5 10.2")
EFFECTS = position("2 3 5 6 7", "1 2 4 6 8 9 10", row0="10 10.4 6", row1="9 8.1", deck_top="3 7")


def finished() -> np.ndarray:
    game = sky_envs.make_game(ENV)
    state = game.new_initial_state(np.random.default_rng(7))
    rng = np.random.default_rng(7)
    while not state.is_over():
        state.apply(int(rng.choice(state.legal_actions())))
    return game.render_rgb(state)


def pictures() -> dict:
    start = sky_envs.make_game(ENV).new_initial_state(np.random.default_rng(0)).to_text()
    return {
        "start": played_picture(ENV, start),
        "build_before": played_picture(ENV, BUILD),
        "build_after": played_picture(ENV, BUILD, ["1>0"]),
        "dismantle_after": played_picture(ENV, BUILD, ["1>0", "dismantle 0"]),
        "rush_4_before": played_picture(ENV, RUSH),
        "rush_4_after": played_picture(ENV, RUSH, ["4>0", "4>0", "4>0", "4>0"]),
        "chaos_9": played_picture(ENV, CHAOS, ["9>p1:0"]),
        "exchange_2": played_picture(ENV, EFFECTS, ["2>2", "exchange p1"]),
        "peek_3": played_picture(ENV, EFFECTS, ["3>1"]),
        "return_5": played_picture(ENV, EFFECTS, ["5>1"]),
        "ask_6": played_picture(ENV, EFFECTS, ["6>R", "ask p1 9"]),
        "open_7": played_picture(ENV, EFFECTS, ["7>1"]),
        "finished": finished(),
    }
