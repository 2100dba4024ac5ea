"""Pictures of the Golden Rush docs page (docs/envs/golden_rush_v0.md): the start, a turn,
a near stand closing (its far stand grows), the centre going to the queue's first seat, and
a finished game."""

from __future__ import annotations

from _helpers import played_picture

ENV = "golden_rush_v0"


def position(stands: list[str], turn: int, phase: str = "transfer", queue: str = "") -> str:
    """Stands 0 (centre), then 0n 0f 1n 1f 2n 2f 3n 3f; the seat to move is turn % 4."""
    return "\n".join(stands + [f"to_move: {turn % 4}", f"phase: {phase}", f"turn: {turn}",
                               "closed_this_turn: 0", f"queue: {queue}"])


START = position(["-"] * 9, 0)
MIDGAME = position(["0123", "0000111", "00022", "1113330", "111", "22220", "2222", "333311", "3322"], 20)
NEAR_CLOSES = position(["012", "0000333", "0002", "1111111111", "1111111110", "22222222", "222",
                        "3333333", "33"], 25)
CENTRE = position(["01212333", "0" * 11, "00000111222", "1111111", "1111", "2" * 11, "22222222333",
                   "3311333", "333"], 50, queue="2 0")
FINISHED = position(["01111133131", "33331120000", "22222222200", "33313311222", "22222010000",
                     "00221333331", "00000120000", "11113023333", "11112222233"], 42, queue="0 2 3 1")


def pictures() -> dict:
    return {
        "start": played_picture(ENV, START),
        "turn_before": played_picture(ENV, MIDGAME),
        "turn_after": played_picture(ENV, MIDGAME, ["1>4", "+111"]),
        "near_closes_before": played_picture(ENV, NEAR_CLOSES),
        "near_closes_after": played_picture(ENV, NEAR_CLOSES, ["pass", "+3"]),
        "centre_before": played_picture(ENV, CENTRE),
        "centre_after": played_picture(ENV, CENTRE, ["7>0"]),
        "finished": played_picture(ENV, FINISHED),
    }
