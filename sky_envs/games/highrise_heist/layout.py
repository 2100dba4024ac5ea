"""The action layout shared by both modes: transfers, "no transfer", placements, swap.

With S stands (10 in Highrise Heist, 9 in Golden Rush) the layout is, exactly as the rules
file writes it:

* ``a * S + b`` (a != b): transfer the top group of stand a onto stand b;
* ``S * S``: no transfer;
* ``S * S + 1 + 3 * s + (k - 1)``: place k = 1..3 blocks on stand s;
* ``S * S + 1 + 3 * S + 3 * p + j``: place on two stands s < t, p = the index of (s, t)
  among the S (S - 1) / 2 pairs in lexicographic order, j = 0: (1, 1), 1: (1, 2),
  2: (2, 1) blocks on (s, t);
* the swap (pie rule) last, in the 2-seat game only.

S = 10 gives N = 267 (swap = 266); S = 9 gives N = 217.
"""

from __future__ import annotations

PAIR_COUNTS = ((1, 1), (1, 2), (2, 1))


class ActionLayout:
    """Index arithmetic and decoding tables of one layout (built once per game)."""

    def __init__(self, num_stands: int, swap: bool):
        S = self.num_stands = num_stands
        self.no_transfer = S * S
        self.single = S * S + 1
        self.pair = self.single + 3 * S
        self.pairs = [(s, t) for s in range(S) for t in range(s + 1, S)]
        end = self.pair + 3 * len(self.pairs)
        self.swap = end if swap else -1
        self.size = end + 1 if swap else end
        #: action - single -> ((stand, count), ...) for every placement action
        parts: list[tuple[tuple[int, int], ...]] = []
        for s in range(S):
            for k in (1, 2, 3):
                parts.append(((s, k),))
        for s, t in self.pairs:
            for a, b in PAIR_COUNTS:
                parts.append(((s, a), (t, b)))
        self.placements = tuple(parts)

    def placement_action(self, parts: dict[int, int] | list[tuple[int, int]]) -> int:
        """The action index of a placement given as ``{stand: count}`` or ``[(stand, count)]``."""
        items = sorted(dict(parts).items())
        if len(items) == 1:
            (s, k), = items
            if 0 <= s < self.num_stands and 1 <= k <= 3:
                return self.single + 3 * s + k - 1
        elif len(items) == 2:
            (s, a), (t, b) = items
            if (a, b) in PAIR_COUNTS and 0 <= s < t < self.num_stands:
                return self.pair + 3 * self.pairs.index((s, t)) + PAIR_COUNTS.index((a, b))
        raise ValueError(f"no placement action places {dict(items)}: expected 1-3 blocks on one stand "
                         f"or (1,1), (1,2), (2,1) on two stands")

    def transfer_action(self, source: int, target: int) -> int:
        S = self.num_stands
        if not (0 <= source < S and 0 <= target < S and source != target):
            raise ValueError(f"no transfer action from stand {source} to stand {target}: expected two different stands in 0..{S - 1}")
        return source * S + target

    def describe(self, action: int, stand_name=str) -> str:
        """A readable meaning of ``action``; ``stand_name(i)`` names stand i."""
        S = self.num_stands
        if 0 <= action < self.no_transfer:
            a, b = divmod(action, S)
            if a == b:
                return f"transfer from stand {stand_name(a)} onto itself (never legal)"
            return f"transfer the top group of stand {stand_name(a)} onto stand {stand_name(b)}"
        if action == self.no_transfer:
            return "no transfer"
        if action == self.swap:
            return "swap colours (pie rule)"
        if self.single <= action < self.pair + 3 * len(self.pairs):
            parts = self.placements[action - self.single]
            words = [f"{k} on stand {stand_name(s)}" for s, k in parts]
            return "place " + " and ".join(words)
        return f"action {action} (out of range 0..{self.size - 1})"
