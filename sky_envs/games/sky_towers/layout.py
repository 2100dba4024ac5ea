"""The action layout: index <-> meaning, for T row slots (N = 303 with T = 12).

With W = T + 2 (the T slots plus "new tower at the left end" p = T and "at the right
end" p = T + 1) and STOP = 43 + 17 T:

==========================================  ===========================================
index                                       meaning
==========================================  ===========================================
0                                           draw the deck's top card (also the 6's draw)
v (1..10)                                   take the open card of value v
11 + t (t < T)                              dismantle your tower in slot t
11 + T + (v-1) W + p                        build a v on your row at p
31 + 11 T + ((v-8) 3 + (o-1)) W + p         build an 8/9 on seat (i+o) % n's row at p
STOP                                        stop / decline
STOP + o (o = 1..3)                         exchange (2) with seat (i+o) % n
STOP + 3 + v                                give a card of value v (exchange)
STOP + 14 / STOP + 15                       peeked card stays on top / goes to the bottom
STOP + 15 + (o-1) 10 + v                    ask seat (i+o) % n for a v (6)
STOP + 45 + v                               discard a card of value v (5)
STOP + 56 = N                               number of actions
==========================================  ===========================================
"""

from __future__ import annotations

# action kinds (first element of a decoded action)
DRAW, TAKE, DISMANTLE, BUILD, CHAOS, STOP, EXCHANGE, GIVE, KEEP, BOTTOM, ASK, DISCARD = range(12)


class ActionLayout:
    """Index arithmetic for one ``max_towers`` (T) and a precomputed decode table."""

    def __init__(self, slots: int):
        T = self.T = slots
        W = self.W = T + 2
        self.DISMANTLE = 11
        self.BUILD = 11 + T
        self.CHAOS = self.BUILD + 10 * W
        self.STOP = self.CHAOS + 6 * W
        self.EXCHANGE = self.STOP
        self.GIVE = self.STOP + 3
        self.KEEP = self.STOP + 14
        self.BOTTOM = self.STOP + 15
        self.ASK = self.STOP + 15
        self.DISCARD = self.STOP + 45
        self.N = self.STOP + 56
        #: decode[a] = (kind, value, seat offset, slot p); unused fields are 0
        self.decode: list[tuple[int, int, int, int]] = [self._decode(a) for a in range(self.N)]

    def build(self, v: int, p: int) -> int:
        return self.BUILD + (v - 1) * self.W + p

    def chaos(self, v: int, o: int, p: int) -> int:
        return self.CHAOS + ((v - 8) * 3 + o - 1) * self.W + p

    def ask(self, o: int, v: int) -> int:
        return self.ASK + (o - 1) * 10 + v

    def _decode(self, a: int) -> tuple[int, int, int, int]:
        if a == 0:
            return (DRAW, 0, 0, 0)
        if a <= 10:
            return (TAKE, a, 0, 0)
        if a < self.BUILD:
            return (DISMANTLE, 0, 0, a - self.DISMANTLE)
        if a < self.CHAOS:
            v, p = divmod(a - self.BUILD, self.W)
            return (BUILD, v + 1, 0, p)
        if a < self.STOP:
            k, p = divmod(a - self.CHAOS, self.W)
            return (CHAOS, 8 + k // 3, k % 3 + 1, p)
        if a == self.STOP:
            return (STOP, 0, 0, 0)
        if a <= self.STOP + 3:
            return (EXCHANGE, 0, a - self.STOP, 0)
        if a < self.KEEP:
            return (GIVE, a - self.GIVE, 0, 0)
        if a == self.KEEP:
            return (KEEP, 0, 0, 0)
        if a == self.BOTTOM:
            return (BOTTOM, 0, 0, 0)
        if a <= self.ASK + 30:
            o, v = divmod(a - self.ASK - 1, 10)
            return (ASK, v + 1, o + 1, 0)
        return (DISCARD, a - self.DISCARD, 0, 0)

    def where(self, p: int) -> str:
        if p < self.T:
            return f"slot {p}"
        return "a new tower at the left end" if p == self.T else "a new tower at the right end"

    def describe(self, a: int) -> str:
        """The meaning of action ``a`` (seat offsets as written in the layout)."""
        kind, v, o, p = self.decode[a]
        if kind == DRAW:
            return "draw the deck's top card"
        if kind == TAKE:
            return f"take the open card of value {v}"
        if kind == DISMANTLE:
            return f"dismantle your tower in slot {p}"
        if kind == BUILD:
            return f"build a {v} on {self.where(p)} of your row"
        if kind == CHAOS:
            return f"build a {v} on {self.where(p)} of the row of the seat at offset +{o}"
        if kind == STOP:
            return "stop (end the final turn / stop rushing 4s / decline the effect)"
        if kind == EXCHANGE:
            return f"exchange with the seat at offset +{o}"
        if kind == GIVE:
            return f"give a card of value {v}"
        if kind == KEEP:
            return "leave the peeked card on top of the deck"
        if kind == BOTTOM:
            return "put the peeked card at the bottom of the deck"
        if kind == ASK:
            return f"ask the seat at offset +{o} for a {v}"
        return f"discard a card of value {v}"
