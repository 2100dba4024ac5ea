"""Pictures of the Highrise Heist docs page (docs/envs/highrise_heist_v0.md): the start, a
turn, a closing transfer, the swap, a closing placement and a finished game."""

from __future__ import annotations

from _helpers import played_picture

ENV = "highrise_heist_v0"


def position(stands: list[str], to_move: int, phase: str, turn: int, closed: int = 0) -> str:
    return "\n".join(stands + [f"to_move: {to_move}", f"phase: {phase}", f"turn: {turn}",
                               f"closed_this_turn: {closed}"])


START = position(["-"] * 10, 0, "place", 0)
AFTER_FIRST_BLOCK = position(["b"] + ["-"] * 9, 1, "transfer", 1)
MIDGAME = position(["bbr", "rrrr", "b", "-", "rrbbb", "bbbrr", "bbbb", "rr", "-", "rrbb"], 0, "transfer", 10)
OVERFLOW = position(["rbb", "bbrr", "rrbbbbbbbb", "rrb", "brr", "-", "bbbr", "rbbb", "rr", "b"], 0, "transfer", 12)
LAST_TWO_OPEN = position(["b" * 11, "b" * 11, "r" * 11, "bbrrrrrrrrr", "rrbbbbbbbbb", "r" * 11,
                          "rrrrbbbrrrr", "rrrbbbbbbbb", "rrrrbbbbb", "bbbbrrrrrr"], 0, "transfer", 40)
FINISHED = position(["rrrrrrrrrrr", "bbbbbbbbrb", "bbbbrbbb", "bbrrrrrrrrr", "bbrrrbrrrrr", "bbbbbbbbbbb",
                     "bbbrrrrrbbb", "rrrrrrrrrrr", "bbbbrrrrrrr", "rrbbbbbbbbb"], 1, "place", 51, 1)


def pictures() -> dict:
    return {
        "start": played_picture(ENV, START),
        "turn_before": played_picture(ENV, MIDGAME),
        "turn_after": played_picture(ENV, MIDGAME, ["4>6", "+669"]),
        "closing_transfer_before": played_picture(ENV, OVERFLOW),
        "closing_transfer_after": played_picture(ENV, OVERFLOW, ["7>2"]),
        "swap_before": played_picture(ENV, AFTER_FIRST_BLOCK),
        "swap_after": played_picture(ENV, AFTER_FIRST_BLOCK, ["swap"]),
        "last_two_open_before": played_picture(ENV, LAST_TWO_OPEN),
        "last_two_open_after": played_picture(ENV, LAST_TWO_OPEN, ["pass", "+9"]),
        "finished": played_picture(ENV, FINISHED),
    }
