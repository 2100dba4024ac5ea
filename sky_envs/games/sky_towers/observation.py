"""The observation: one flat float32 vector per seat, raw counts (documented field by field).

Seats appear by offset from the observer: block k describes seat (observer + k) % n, so the
observer's own block comes first. Only public information and the observer's own hand are
in it: never another seat's hand or the deck order; the peeked card appears only for the
seat that peeked, while it decides where the card goes.
"""

from __future__ import annotations

import numpy as np

from sky_envs.games.sky_towers.deck import BONUS_NAMES, Deck


class ObservationLayout:
    """Offsets, field table and bounds of the observation for n seats and T row slots."""

    def __init__(self, players: int, slots: int, deck: Deck):
        n, T = players, slots
        total = deck.total
        tower_max = total // 3  # a complete tower has >= 3 cards (10 + 9 is only 19)
        value_high = [float(max(1, deck.copies[v])) for v in range(1, 11)]
        fields: list[tuple[str, int, list[float]]] = [("own hand: count of each value 1..10", 10, value_high)]
        seat_fields = []
        for t in range(T):
            seat_fields.append((f"row slot {t}: tower sum (0 = no tower)", 1, [20.0]))
            seat_fields.append((f"row slot {t}: top card value", 1, [10.0]))
            seat_fields.append((f"row slot {t}: number of cards", 1, [20.0]))
        seat_fields += [
            ("score pile: sails on completed towers", 1,
             [float(max(1, sum(c * s for c, s in zip(deck.copies, deck.sails))))]),
            ("score pile: flags on completed towers", 1,
             [float(max(1, sum(c * f for c, f in zip(deck.copies, deck.flags))))]),
            ("score pile: number of cards", 1, [float(total)]),
            ("score pile: number of completed towers", 1, [float(tower_max)]),
            ("score pile: completed towers containing a 10", 1, [float(tower_max)]),
            ("hand size", 1, [float(total)]),
            ("action card: 1 = dismantle side up (may dismantle), 0 = flipped", 1, [1.0]),
            (f"bonus cards held: {', '.join(BONUS_NAMES)} (1 = held)", 7, [1.0] * 7),
            ("1 if it is this seat's turn", 1, [1.0]),
            ("1 if this seat decides now (e.g. a 5's discard)", 1, [1.0]),
            ("1 if the deck ran out in this seat's turn (the final round ends with it)", 1, [1.0]),
            ("1 if this seat is the target of the pending exchange (give phase)", 1, [1.0]),
        ]
        self.seat_block = sum(size for _, size, _ in seat_fields)  # 3T + 18
        for k in range(n):
            for name, size, high in seat_fields:
                fields.append((f"seat +{k}: {name}", size, high))
        fields += [
            ("deck size", 1, [float(total)]),
            ("open pool: count of each value 1..10", 10, value_high),
            ("discarded (by the 5): count of each value 1..10", 10, value_high),
            ("phase one-hot: main, rush, exchange, give, peek, ask, discard (all 0 when over)", 7, [1.0] * 7),
            ("rush: one-hot of the slot being rushed", T, [1.0] * T),
            ("peeked card one-hot 1..10 (only the peeking seat, while deciding)", 10, [1.0] * 10),
            ("actions left in the current turn", 1, [3.0]),
            ("1 in the final round", 1, [1.0]),
            ("towers the turn seat completed itself this turn (Real-estate King)", 1, [float(tower_max)]),
        ]
        self.fields = [(name, size) for name, size, _ in fields]
        self.high = np.array([h for _, _, highs in fields for h in highs], dtype=np.float32)
        self.size = len(self.high)
        self.n, self.T = n, T
        self.o_seats = 10
        self.o_deck = 10 + n * self.seat_block
        self.o_open = self.o_deck + 1
        self.o_discards = self.o_open + 10
        self.o_phase = self.o_discards + 10
        self.o_rush = self.o_phase + 7
        self.o_peek = self.o_rush + T
        self.o_actions = self.o_peek + 10
        assert self.o_actions + 3 == self.size
        # The state keeps a "public" vector in absolute seat order (every seat's hand included)
        # and updates it lazily; a seat's observation is one gather from it. Its layout: hands
        # (10 per seat), seat blocks without the turn flags, open pool + discards (20), zeros
        # (the peeked card, set per observer), then what changes at every step: deck size,
        # actions left, final flag, completed count, phase one-hot, rush one-hot, turn flags.
        blk = 3 * T + 14
        self.blk = blk
        self.p_blocks = 10 * n
        self.p_pool = self.p_blocks + n * blk
        self.p_zeros = self.p_pool + 20
        self.p_dyn = self.p_zeros + 10
        p_flags = self.p_dyn + 11 + T
        self.pub_size = p_flags + 4 * n
        self.dyn_zeros = np.zeros(self.pub_size - self.p_dyn, dtype=np.float32)  # clears the dynamic part
        self.perm = []
        for seat in range(n):
            idx = list(range(10 * seat, 10 * seat + 10))
            for k in range(n):
                s = (seat + k) % n
                idx += range(self.p_blocks + s * blk, self.p_blocks + (s + 1) * blk)
                idx += range(p_flags + 4 * s, p_flags + 4 * s + 4)
            idx.append(self.p_dyn)                                   # deck size
            idx += range(self.p_pool, self.p_pool + 20)               # open pool, discards
            idx += range(self.p_dyn + 4, self.p_dyn + 11 + T)         # phase, rush slot
            idx += range(self.p_zeros, self.p_zeros + 10)             # peeked card
            idx += range(self.p_dyn + 1, self.p_dyn + 4)              # actions, final, completed
            assert len(idx) == self.size
            self.perm.append(np.array(idx, dtype=np.intp))

    def offsets(self) -> list[tuple[int, int, str]]:
        """``(start, size, description)`` of every field, in order (for the docs and tests)."""
        out, start = [], 0
        for name, size in self.fields:
            out.append((start, size, name))
            start += size
        return out

    def refresh(self, state) -> None:
        """Bring ``state.public_obs`` up to date: rewrite what changed (see the state's cache fields).

        Every write goes through the flat view, entry by entry: numpy slice assignment from a
        Python list costs about a microsecond, more than writing a dozen entries one by one."""
        view = state.public_obs_view
        T, blk, n = self.T, self.blk, self.n
        dirty, dirty_row = state.hands_changed, state.rows_changed
        size = self.p_blocks + 3 * T + 5  # + s * blk: hand size of seat s
        if dirty:
            for s in range(n):
                if dirty >> s & 1:
                    hand = state.hands[s]
                    for v in range(1, 11):
                        view[10 * s + v - 1] = hand[v]
                    view[size + s * blk] = state.hand_size[s]
            state.hands_changed = 0
        if state.hand_counts_touched:
            for s, v in state.hand_counts_touched:
                view[10 * s + v - 1] = state.hands[s][v]
                view[size + s * blk] = state.hand_size[s]
            state.hand_counts_touched = []
        if dirty_row:
            for s in range(n):
                if dirty_row >> s & 1:
                    b = self.p_blocks + s * blk
                    row, sums = state.rows[s], state.sums[s]
                    for slot in range(T):
                        i = b + 3 * slot
                        if slot < len(row):
                            tower = row[slot]
                            view[i] = sums[slot]
                            view[i + 1] = tower[-1]
                            view[i + 2] = len(tower)
                        else:
                            view[i] = view[i + 1] = view[i + 2] = 0
            state.rows_changed = 0
        if state.slots_touched:
            for s, slot in state.slots_touched:
                if not dirty_row >> s & 1:  # slots of a rewritten row may have moved
                    tower = state.rows[s][slot]
                    b = self.p_blocks + s * blk + 3 * slot
                    view[b] = state.sums[s][slot]
                    view[b + 1] = tower[-1]
                    view[b + 2] = len(tower)
            state.slots_touched = []
        if state.scores_changed:
            holder = state.holder
            for s in range(n):
                pile = state.piles[s]
                b = self.p_blocks + s * blk + 3 * T
                view[b] = state.sails[s]
                view[b + 1] = state.flags[s]
                view[b + 2] = sum(map(len, pile))
                view[b + 3] = len(pile)
                view[b + 4] = state.ten_towers[s]
                view[b + 5] = state.hand_size[s]
                view[b + 6] = 1 if state.action_up[s] else 0
                for k, h in enumerate(holder, b + 7):
                    view[k] = 1 if h == s else 0
            state.scores_changed = False
        if state.pool_changed:
            b = self.p_pool
            pool, discards = state.open, state.discards
            for v in range(1, 11):
                view[b + v - 1] = pool[v]
                view[b + 9 + v] = discards[v]
            state.pool_changed = False
        d = self.p_dyn
        view[d:] = self.dyn_zeros
        view[d] = len(state.deck)
        if state.final:
            view[d + 2] = 1.0
        if state.completed_turn:
            view[d + 3] = state.completed_turn
        cur = state.current_player
        flags = d + 11 + T
        if cur >= 0:
            view[d + 1] = state.actions_left
            view[d + 4 + state.phase] = 1.0
            if state.rush_slot >= 0:
                view[d + 11 + state.rush_slot] = 1.0
            view[flags + 4 * state.turn_of] = 1.0
            view[flags + 4 * cur + 1] = 1.0
        if state.end_seat >= 0:
            view[flags + 4 * state.end_seat + 2] = 1.0
        if state.give_target >= 0:
            view[flags + 4 * state.give_target + 3] = 1.0

    def observe(self, state, seat: int) -> np.ndarray:
        self.refresh(state)
        obs = state.public_obs.take(self.perm[seat])
        if state.phase == 4 and state.current_player == seat and state.deck:  # PEEK: the peeker sees
            obs[self.o_peek + state.deck[-1] - 1] = 1.0
        return obs
