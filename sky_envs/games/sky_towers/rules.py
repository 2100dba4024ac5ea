"""Sky Towers' rule facts that every module of the engine reads (the bottom of the folder
beside ``deck.py`` and ``layout.py``): the phases of decision, the tower target, the actions
of a turn, and the most row slots a game may have."""

from __future__ import annotations

# phases: which kind of decision is pending
MAIN, RUSH, EXCHANGE_PHASE, GIVE_PHASE, PEEK, ASK_PHASE, DISCARD_PHASE, OVER = range(8)
PHASE_NAMES = ("main", "rush", "exchange", "give", "peek", "ask", "discard", "over")
PHASE_HELP = (
    "a main action (draw, take an open card, dismantle, build; stop in a final turn)",
    "the 4's rush: build another 4 on the same tower, or stop",
    "the 2's exchange: name a seat with at least 2 cards, or decline (stop)",
    "the second half of the exchange: give a card",
    "the 3's peek: leave the top card on top or put it at the bottom",
    "the 6's ask-or-draw: ask a seat for a value, or draw",
    "the 5's return: discard down to 5 cards",
    "nothing (the game is over)",
)
TARGET = 21  # a tower is complete when its cards sum to this
TURN_ACTIONS = 2   # actions of a normal turn
FINAL_ACTIONS = 3  # actions of a turn in the final round
MAX_SLOTS = 64   # the most row slots (towers per row, ``max_towers``) a game may have
