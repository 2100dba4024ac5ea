"""Highrise Heist, 2 seats: the rules that differ from the shared core.

* A transfer may bring a stand to 11 or beyond (the excess leaves from the bottom) only
  with a group of the mover's own colour; other groups may build a stand to 10.
* A placement may build a stand to 11 only when at most 2 stands are open and no stand was
  closed earlier this turn; otherwise to 10. It never closes two stands.
* Turn 0: one block, no transfer phase. Turn 1: ``player_1`` may swap all colours.
* Decided as soon as one seat cannot win even by closing every open stand itself
  (the golden stand 0 breaks a 5:5 tie).
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.state import win_loss_returns
from sky_envs.games.highrise_heist.observation import heist_observation
from sky_envs.games.highrise_heist.rules import GOLDEN, HEIGHT, PLACE, TRANSFER, cells_array
from sky_envs.games.highrise_heist.state import StackState

NUM_STANDS = 10
COLOUR_LETTERS = "br"


class HeistState(StackState):
    """A Highrise Heist position; see :mod:`sky_envs.highrise_heist_v0` for the rules."""

    __slots__ = ("cap",)

    # ------------------------------------------------------------ hooks
    def placement_limits(self) -> list[int]:
        return [self._placement_cap()] * NUM_STANDS

    def _placement_cap(self) -> int:
        if self.closed_this_turn:
            return HEIGHT - 1
        open_count = NUM_STANDS - self.heights.count(HEIGHT)
        return HEIGHT if open_count <= 2 else HEIGHT - 1

    def _settle(self) -> None:
        # the cap changes only with the position: fixed here for the mask and the observation
        self.cap = self._placement_cap()
        super()._settle()

    def _placement_context(self) -> int:
        """See ``tables.heist_tables``: 1 block on turn 0, else 3; cap 10 or 11 for all stands."""
        return (self.turn != 0) * 2 + (self.cap == HEIGHT)

    def max_blocks(self) -> int:
        return 1 if self.turn == 0 else 3

    def one_closure_only(self) -> bool:
        return True

    def swap_legal(self) -> bool:
        return self.turn == 1 and self.phase == TRANSFER

    def _swap(self) -> None:
        self.stands = [[1 - c for c in column] for column in self.stands]
        self.cells[:] = cells_array(self.stands)   # in place: the flat view stays valid
        for s in range(NUM_STANDS):  # top colours and owners changed; the group sizes did not
            self._recode(s)
        self._over_by_rules = self._decided()

    def closed_counts(self) -> list[int]:
        counts = [0, 0]
        for column in self.stands:
            if len(column) == HEIGHT:
                counts[column[-1]] += 1
        return counts

    def _can_still_win(self, seat: int, counts: list[int], open_count: int) -> bool:
        best = counts[seat] + open_count
        other = counts[1 - seat]
        if best != other:
            return best > other
        golden = self.stands[GOLDEN]
        return len(golden) < HEIGHT or golden[-1] == seat

    def _decided(self) -> bool:
        counts = self.closed_counts()
        open_count = NUM_STANDS - counts[0] - counts[1]
        return not (self._can_still_win(0, counts, open_count) and self._can_still_win(1, counts, open_count))

    def winner(self) -> int:
        """The winning seat once the game is decided, else -1."""
        if not self.finished:
            return -1
        counts = self.closed_counts()
        open_count = NUM_STANDS - counts[0] - counts[1]
        return 0 if self._can_still_win(0, counts, open_count) else 1

    # ------------------------------------------------------------ explanations
    def stand_name(self, stand: int) -> str:
        return f"{stand} (golden)" if stand == GOLDEN else str(stand)

    def transfer_height_problem(self, colour: int, size: int, target: int) -> str | None:
        height = len(self.stands[target]) + size
        if height >= HEIGHT and colour != self.to_move:
            return (f"the group of {size} colour-{colour} blocks would close stand {self.stand_name(target)} "
                    f"({height} >= 11 blocks); only a group of the mover's own colour "
                    f"({self.to_move}) may close a stand")
        return None

    def placement_height_problem(self, stand: int, height: int, limit: int) -> str:
        if height > HEIGHT:
            return f"stand {self.stand_name(stand)} would hold {height} blocks; a stand holds at most 11"
        if self.closed_this_turn:
            return ("a stand was already closed this turn (by the transfer): the placement may not "
                    f"close stand {self.stand_name(stand)} too (at most one closure per turn)")
        open_count = sum(1 for column in self.stands if len(column) < HEIGHT)
        return (f"stand {self.stand_name(stand)} would reach 11 blocks, but a placement may close a stand "
                f"only when at most 2 stands are open ({open_count} are): fill it to 10 at most")

    # ------------------------------------------------------------ results
    def returns(self) -> np.ndarray:
        return win_loss_returns([self.winner()] if self.finished else [], 2)

    def winners(self) -> list[int]:
        return [self.winner()]

    def score_vector(self) -> list[int]:
        return self.closed_counts()

    def info(self) -> dict:
        golden = self.stands[GOLDEN]
        info = {
            "scores": self.closed_counts(),
            "golden_owner": golden[-1] if len(golden) == HEIGHT else None,
            "turn": self.turn,
            "phase": "place" if self.phase == PLACE else "transfer",
        }
        if self.finished:
            info["winners"] = self.winners()
        return info

    #: ``observation(seat)``: the seat-relative tensor (see ``observation.py``)
    observation = heist_observation
