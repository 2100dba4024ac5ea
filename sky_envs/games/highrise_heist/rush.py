"""Golden Rush, 4 seats: the rules that differ from the shared core.

Nine stands on a cross: stand 0 is the golden centre, seat p owns the arm stands
``2p + 1`` (near) and ``2p + 2`` (far). Capacities: a near stand 11; a far stand 10 while
its seat's near stand is open, 11 once it is closed; the centre 10 until some seat is
eligible, then 11. No transfer or placement may exceed a capacity (so nothing is ever
trimmed), any of them may close stands, and several closures per turn are allowed. A seat
is eligible once both of its arm stands are closed; eligible seats queue in the order they
became eligible (seats made eligible by the same decision queue in seat order, as the
published engine does) and the centre belongs to the first of them.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.state import win_loss_returns
from sky_envs.games.highrise_heist.observation import rush_observation
from sky_envs.games.highrise_heist.rules import CENTRE, HEIGHT, PLACE
from sky_envs.games.highrise_heist.state import StackState

NUM_STANDS = 9
NUM_SEATS = 4
NEAR_POINTS, FAR_POINTS, CENTRE_POINTS, TEAM_BONUS = 5, 8, 15, 5
TEAMS = ((0, 2), (1, 3))
SCORE_SCALE = 100.0  # reward="score": (score - mean score) / SCORE_SCALE


def near_stand(seat: int) -> int:
    return 2 * seat + 1


def far_stand(seat: int) -> int:
    return 2 * seat + 2


def arm_seat(stand: int) -> int:
    """The seat whose arm ``stand`` is (-1 for the centre)."""
    return (stand - 1) // 2 if stand else -1


class RushState(StackState):
    """A Golden Rush position; see :mod:`sky_envs.golden_rush_v0` for the rules."""

    __slots__ = ("queue",)

    def __init__(self, game, stands, turn, phase, closed_this_turn, queue: list[int], rng):
        self.queue = queue
        super().__init__(game, stands, turn, phase, closed_this_turn, rng)

    def clone(self) -> RushState:
        twin = super().clone()
        twin.queue = self.queue[:]
        return twin

    # ------------------------------------------------------------ capacities
    def capacities(self) -> list[int]:
        """The current capacity of every stand (11 for closed ones)."""
        stands = self.stands
        caps = [HEIGHT if self.queue else HEIGHT - 1]
        for seat in range(NUM_SEATS):
            caps.append(HEIGHT)
            caps.append(HEIGHT if len(stands[2 * seat + 1]) == HEIGHT else HEIGHT - 1)
        return caps

    def placement_limits(self) -> list[int]:
        return self.capacities()

    def _capacity_bit(self, stand: int) -> int:
        """The bit of :meth:`capacities`: capacity 11 (1) or 10 (0)."""
        if stand == CENTRE:
            return 1 if self.queue else 0
        if stand % 2:
            return 1
        return 1 if len(self.stands[stand - 1]) == HEIGHT else 0

    def _on_close(self) -> None:
        stands = self.stands
        for seat in range(NUM_SEATS):
            if (seat not in self.queue and len(stands[2 * seat + 1]) == HEIGHT
                    and len(stands[2 * seat + 2]) == HEIGHT):
                self.queue.append(seat)
        for stand, bit in enumerate(self.cap_bits):  # a closure can raise other capacities
            if self._capacity_bit(stand) != bit:
                self._recode(stand)

    def _decided(self) -> bool:
        return all(len(column) == HEIGHT for column in self.stands)

    def owner(self, stand: int) -> int:
        column = self.stands[stand]
        if len(column) < HEIGHT:
            return -1
        return self.queue[0] if stand == CENTRE else column[-1]

    def eligible(self, seat: int) -> bool:
        return seat in self.queue

    # ------------------------------------------------------------ explanations
    def stand_name(self, stand: int) -> str:
        if stand == CENTRE:
            return "0 (centre)"
        kind = "near" if stand % 2 else "far"
        return f"{stand} (player_{arm_seat(stand)} {kind})"

    def _capacity_why(self, stand: int) -> str:
        if stand == CENTRE:
            return "the centre holds 10 until some seat is eligible (both of its arm stands closed)"
        if stand % 2 == 0:
            return "a far stand holds 10 while its seat's near stand is open"
        return "a stand holds at most 11"

    def transfer_height_problem(self, colour: int, size: int, target: int) -> str | None:
        cap = self.capacities()[target]
        height = len(self.stands[target]) + size
        if height > cap:
            return (f"the group of {size} would bring stand {self.stand_name(target)} to {height} blocks "
                    f"but it holds {cap} now: {self._capacity_why(target)}")
        return None

    def placement_height_problem(self, stand: int, height: int, limit: int) -> str:
        return (f"stand {self.stand_name(stand)} would hold {height} blocks but it holds {limit} now: "
                f"{self._capacity_why(stand)}")

    # ------------------------------------------------------------ scoring
    def scores(self) -> list[int]:
        """Each seat's score now: blocks, closed stands owned, and the team bonus in teams mode."""
        scores = [0] * NUM_SEATS
        for stand, column in enumerate(self.stands):
            for colour in column:
                scores[colour] += 1
            owner = self.owner(stand)
            if owner >= 0:
                scores[owner] += CENTRE_POINTS if stand == CENTRE else (NEAR_POINTS if stand % 2 else FAR_POINTS)
        if self.game.mode == "teams":
            for team in TEAMS:
                if all(self.eligible(seat) for seat in team):
                    for seat in team:
                        scores[seat] += TEAM_BONUS
        return scores

    def team_scores(self) -> list[int]:
        scores = self.scores()
        return [sum(scores[s] for s in team) for team in TEAMS]

    def winners(self) -> list[int]:
        """Seats with the best score (ffa) or the members of the better team; [] on a team draw."""
        if self.game.mode == "teams":
            totals = self.team_scores()
            if totals[0] == totals[1]:
                return []
            return list(TEAMS[0] if totals[0] > totals[1] else TEAMS[1])
        scores = self.scores()
        best = max(scores)
        return [seat for seat in range(NUM_SEATS) if scores[seat] == best]

    def returns(self) -> np.ndarray:
        out = np.zeros(NUM_SEATS)
        if not self.finished:
            return out
        if self.game.reward == "score":
            if self.game.mode == "teams":
                totals = self.team_scores()
                values = [totals[seat % 2] for seat in range(NUM_SEATS)]
            else:
                values = self.scores()
            mean = sum(values) / NUM_SEATS
            return np.array([(v - mean) / SCORE_SCALE for v in values])
        return win_loss_returns(self.winners(), NUM_SEATS)

    def score_vector(self) -> list[int]:
        return self.scores()

    def info(self) -> dict:
        info = {
            "scores": self.scores(),
            "queue": self.queue[:],
            "turn": self.turn,
            "phase": "place" if self.phase == PLACE else "transfer",
        }
        if self.game.mode == "teams":
            info["team_scores"] = self.team_scores()
        if self.finished:
            info["winners"] = self.winners()
        return info

    #: ``observation(seat)``: the seat-relative tensor (see ``observation.py``)
    observation = rush_observation
