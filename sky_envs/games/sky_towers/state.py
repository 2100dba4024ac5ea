"""Sky Towers rules: turns of two actions, build restrictions, card effects, bonuses, the end.

One :class:`SkyTowersState` is a full position, hidden parts included (deck order, hands).
A turn is a run of decisions of the seat whose turn it is (``turn_of``); a card effect is
its own phase of decisions, and the 5 (Return) hands the decision to each seat that must
discard (``current_player`` is always whoever decides now). Besides the position the state
tracks what each seat *knows* about hidden cards (``known``, ``lacks``, ``deck_known``), so
that :meth:`sample_consistent` can redistribute exactly what a seat cannot see.

The rule facts live in ``rules``; the position text, notation, explanations, observation,
pictures and determinisation in the modules beside this one (``text``, ``notation``,
``explain``, ``observation``, ``render``, ``sampler``), which the state's methods hand over to.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.buffers import KeepsViews, flat_view
from sky_envs.core.masks import mask_from_actions
from sky_envs.core.state import GameState, LazilyCopiedRng, win_loss_returns
from sky_envs.games.sky_towers import explain, notation, render, sampler
from sky_envs.games.sky_towers.deck import (BIG_BEN, BONUS_NAMES, HAND_SIZE, KING, LUCKY, PERFECT,
                                            ROMANCE, SKY, TRIPLE)
from sky_envs.games.sky_towers.layout import BOTTOM, BUILD, DISMANTLE, DRAW, EXCHANGE, STOP, TAKE
from sky_envs.games.sky_towers.rules import (ASK_PHASE, DISCARD_PHASE, EXCHANGE_PHASE, FINAL_ACTIONS, GIVE_PHASE,
                                             MAIN, OVER, PEEK, RUSH, TARGET, TURN_ACTIONS)
from sky_envs.games.sky_towers.text import state_to_text

class SkyTowersState(LazilyCopiedRng, KeepsViews, GameState):
    """A Sky Towers position. Built by ``SkyTowersGame`` (set-up or position text)."""

    __slots__ = ("game", "layout", "deckinfo", "n", "T", "hands", "hand_size", "rows", "sums",
                 "piles", "sails", "flags", "ten_towers", "action_up", "deck", "deck_known",
                 "open", "discards", "holder", "turns", "turn_of", "actions_left", "phase",
                 "rush_slot", "give_target", "completed_turn", "end_seat", "final",
                 "current_player", "known", "lacks", "_legal", "_actions_of", "public_obs",
                 "public_obs_view", "hands_changed", "rows_changed", "scores_changed", "pool_changed",
                 "hand_counts_touched", "slots_touched")

    def __init__(self, game, rng: np.random.Generator | None):
        n = game.num_players
        self.game = game
        self.layout = game.layout
        self.deckinfo = game.deck
        self.n, self.T = n, game.max_towers
        self.rng = rng if rng is not None else np.random.default_rng()
        self.hands = [[0] * 11 for _ in range(n)]
        self.hand_size = [0] * n
        self.rows: list[list[list[int]]] = [[] for _ in range(n)]
        self.sums: list[list[int]] = [[] for _ in range(n)]
        self.piles: list[list[list[int]]] = [[] for _ in range(n)]
        self.sails = [0] * n
        self.flags = [0] * n
        self.ten_towers = [0] * n
        self.action_up = [True] * n
        self.deck: list[int] = []  # top card last
        self.deck_known: list[int] = []  # per deck card: bitmask of seats that know it
        self.open = [0] * 11
        self.discards = [0] * 11
        self.holder = [-1] * len(BONUS_NAMES)
        self.turns = 0
        self.turn_of = 0
        self.actions_left = TURN_ACTIONS
        self.phase = MAIN
        self.rush_slot = -1
        self.give_target = -1
        self.completed_turn = 0  # towers the turn seat completed itself in this turn
        self.end_seat = -1  # the seat in whose turn the deck ran out
        self.final = False
        self.current_player = 0
        # knowledge: known[t][o][v] = cards of value v that seat t knows seat o holds (a lower
        # bound); lacks[t][o] = bitmask of values t knows o does not hold
        self.known = [[[0] * 11 for _ in range(n)] for _ in range(n)]
        self.lacks = [[0] * n for _ in range(n)]
        self._legal: list[int] | None = None
        self._actions_of: tuple[list[int], np.ndarray] | None = None   # legal_actions' cache
        # the observation's public part, which observation.py writes, and what changed since
        # it was written (observation.py reads and clears these): bitmasks of seats whose
        # whole hand (hands_changed) or row (rows_changed) must be rewritten, single hand
        # counts (seat, value) and tower slots (seat, slot) touched, and flags for the score
        # piles / action cards / bonuses and the open pool / discards
        self.public_obs = np.zeros(game.obs_layout.pub_size, dtype=np.float32)
        self._views()
        self.hands_changed = self.rows_changed = (1 << n) - 1
        self.scores_changed = self.pool_changed = True
        self.hand_counts_touched: list[tuple[int, int]] = []
        self.slots_touched: list[tuple[int, int]] = []

    # ================================================================ helpers
    @property
    def all_seats(self) -> int:
        return (1 << self.n) - 1

    def score(self, seat: int) -> int:
        bonus = self.deckinfo.bonus_sails
        return self.sails[seat] + sum(bonus[b] for b, h in enumerate(self.holder) if h == seat)

    def blocked_values(self, seat: int) -> int:
        """Bitmask of values ``seat`` may not build: tops of its neighbours' nearest towers."""
        n = self.n
        mask = 0
        left = self.rows[(seat - 1) % n]
        if left:
            mask |= 1 << left[-1][-1]
        right = self.rows[(seat + 1) % n]
        if right:
            mask |= 1 << right[0][-1]
        return mask

    def _slot_actions(self, acts: list[int], base: int, v: int, row, sums) -> None:
        """Append ``base + p`` for every p where a v may go on ``row`` (blocking checked by caller)."""
        if v == 1:
            acts += [base + p for p, total in enumerate(sums) if total < TARGET]
        elif v != 10 and sums:
            room = TARGET - v
            acts += [base + p for p, total in enumerate(sums) if total <= room and row[p][-1] != 1]
        T = self.T
        if len(row) < T:
            acts += (base + T, base + T + 1)

    def main_actions(self, s: int) -> list[int]:
        """Draw, take an open card, dismantle, build (+ stop in a final turn), for seat ``s``."""
        L = self.layout
        acts: list[int] = [0] if self.deck else []
        pool = self.open
        if any(pool):
            acts += [v for v in range(1, 11) if pool[v]]
        row = self.rows[s]
        if self.action_up[s] and row:
            acts += range(L.DISMANTLE, L.DISMANTLE + len(row))
        hand = self.hands[s]
        blocked = self.blocked_values(s)
        sums = self.sums[s]
        W = L.W
        slot_actions = self._slot_actions
        for v in range(1, 11):
            if not hand[v] or blocked >> v & 1:
                continue
            slot_actions(acts, L.BUILD + (v - 1) * W, v, row, sums)
            if v == 8 or v == 9:
                for o in range(1, self.n):
                    r = (s + o) % self.n
                    slot_actions(acts, L.CHAOS + ((v - 8) * 3 + o - 1) * W, v, self.rows[r], self.sums[r])
        if self.final and acts:
            acts.append(L.STOP)
        return acts

    def _rush_ok(self) -> bool:
        s = self.turn_of
        return (self.hands[s][4] > 0 and self.sums[s][self.rush_slot] + 4 <= TARGET
                and not self.blocked_values(s) >> 4 & 1)

    def next_discarder(self) -> int:
        """The first seat from the turn seat on that holds more than ``HAND_SIZE`` cards (the
        5's return), or -1."""
        for k in range(self.n):
            seat = (self.turn_of + k) % self.n
            if self.hand_size[seat] > HAND_SIZE:
                return seat
        return -1

    def legal_list(self) -> list[int]:
        """The legal actions in generation order, kept until the position changes (never
        edited: a new list replaces it)."""
        if self._legal is not None:
            return self._legal
        L, ph, s, n = self.layout, self.phase, self.turn_of, self.n
        if self.current_player < 0:
            acts = []
        elif ph == MAIN:
            acts = self.main_actions(s)
        elif ph == RUSH:
            acts = [L.STOP] + ([L.build(4, self.rush_slot)] if self._rush_ok() else [])
        elif ph == EXCHANGE_PHASE:
            acts = [L.STOP] + [L.EXCHANGE + o for o in range(1, n) if self.hand_size[(s + o) % n] >= 2]
        elif ph == GIVE_PHASE:
            acts = [L.GIVE + v for v in range(1, 11) if self.hands[s][v]]
        elif ph == PEEK:
            acts = [L.KEEP, L.BOTTOM]
        elif ph == ASK_PHASE:
            acts = ([0] if self.deck else []) + list(range(L.ASK + 1, L.ASK + 1 + 10 * (n - 1)))
        elif ph == DISCARD_PHASE:
            hand = self.hands[self.current_player]
            acts = [L.DISCARD + v for v in range(1, 11) if hand[v]]
        else:
            acts = []
        self._legal = acts
        return acts

    # ================================================================ protocol
    def legal_mask(self) -> np.ndarray:
        return mask_from_actions(self.legal_list(), self.layout.N)

    def _playout_actions(self) -> list[int]:
        # ascending, as the compiled playouts pick (Game.playout_engine); a sorted list, not
        # legal_actions()' array, costs a random playout less
        return sorted(self.legal_list())

    def legal_actions(self) -> np.ndarray:
        legal = self.legal_list()
        cached = self._actions_of
        if cached is not None and cached[0] is legal:   # lists are replaced, never edited
            return cached[1]
        actions = np.array(sorted(legal), dtype=np.int64)
        actions.flags.writeable = False
        self._actions_of = (legal, actions)
        return actions

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_truncated(self) -> bool:
        return self.phase != OVER and self.turns >= self.game.max_turns

    def winners(self) -> list[int]:
        scores = [self.score(s) for s in range(self.n)]
        best = max(scores)
        tied = [s for s in range(self.n) if scores[s] == best]
        most_flags = max(self.flags[s] for s in tied)
        return [s for s in tied if self.flags[s] == most_flags]

    def returns(self) -> np.ndarray:
        return win_loss_returns(self.winners() if self.phase == OVER else [], self.n)

    def score_vector(self) -> list[int]:
        return [self.score(s) for s in range(self.n)]

    def phase_index(self) -> int:
        return self.phase

    def info(self) -> dict:
        info = {
            "scores": self.score_vector(),
            "flags": list(self.flags),
            "bonuses": {name: self.holder[b] for b, name in enumerate(BONUS_NAMES)
                        if self.deckinfo.in_play(b)},
            "turns": self.turns,
        }
        if self.phase == OVER:
            info["winners"] = self.winners()
        return info

    def observation(self, seat: int) -> np.ndarray:
        return self.game.obs_layout.observe(self, seat)

    def to_text(self) -> str:
        return state_to_text(self)

    def render_text(self) -> str:
        return render.render_text(self, self.game.debug_render)

    def sample_consistent(self, seat: int, rng: np.random.Generator) -> SkyTowersState:
        return sampler.sample_consistent(self, seat, rng)

    _view_names = ("public_obs_view",)

    def _views(self) -> None:
        self.public_obs_view = flat_view(self.public_obs)   # single entries of public_obs are written through it

    def clone(self) -> SkyTowersState:
        new = self._shallow_copy()
        self._copy_rng_to(new)
        new.hands = [h[:] for h in self.hands]
        new.hand_size = self.hand_size[:]
        new.rows = [[t[:] for t in row] for row in self.rows]
        new.sums = [s[:] for s in self.sums]
        new.piles = [[t[:] for t in pile] for pile in self.piles]
        new.sails, new.flags, new.ten_towers = self.sails[:], self.flags[:], self.ten_towers[:]
        new.action_up = self.action_up[:]
        new.deck, new.deck_known = self.deck[:], self.deck_known[:]
        new.open, new.discards, new.holder = self.open[:], self.discards[:], self.holder[:]
        new.known = [[k[:] for k in kt] for kt in self.known]
        new.lacks = [lt[:] for lt in self.lacks]
        new._legal = None if self._legal is None else self._legal[:]
        new.public_obs = self.public_obs.copy()
        new._views()
        new.hand_counts_touched = self.hand_counts_touched[:]
        new.slots_touched = self.slots_touched[:]
        return new

    # =========================================================== explanations
    def action_to_string(self, action: int) -> str:
        return notation.action_to_string(self, int(action))

    def string_to_action(self, text: str) -> int:
        return notation.string_to_action(self, text)

    def describe_action(self, action: int) -> str:
        return notation.describe_action(self, action)

    def illegal_reason(self, action: int) -> str:
        return explain.illegal_reason(self, action)

    # ============================================================ card moves
    def deal(self, deck: list[int], first: int) -> None:
        """Set-up: ``deck`` (shuffled, top card last) deals ``HAND_SIZE`` cards to every seat,
        one at a time from ``first`` on, unseen by the others; ``first`` takes the first turn."""
        self.deck = deck
        n = self.n
        for _ in range(HAND_SIZE):
            for k in range(n):
                self._hand_add((first + k) % n, deck.pop(), 0)
        self.deck_known = [0] * len(deck)
        self.turn_of = self.current_player = first

    def hands_redealt(self) -> None:
        """The hands and the deck were changed outside the rules (a determinisation, see
        ``sampler.py``): forget the legal actions and rewrite every hand in the observation."""
        self._legal = None
        self.hands_changed = self.all_seats

    def _hand_add(self, o: int, v: int, knowers: int) -> None:
        """Seat ``o`` gains a v; seats in ``knowers`` see which card it is."""
        self.hands[o][v] += 1
        self.hand_size[o] += 1
        self.hand_counts_touched.append((o, v))
        bit = 1 << v
        for t in range(self.n):
            if t != o:
                if knowers >> t & 1:
                    self.known[t][o][v] += 1
                    self.lacks[t][o] &= ~bit
                else:
                    self.lacks[t][o] = 0

    def _hand_remove(self, o: int, v: int, knowers: int) -> None:
        """Seat ``o`` loses a v; seats in ``knowers`` see its value, the others do not."""
        self.hands[o][v] -= 1
        self.hand_size[o] -= 1
        self.hand_counts_touched.append((o, v))
        for t in range(self.n):
            if t == o:
                continue
            known = self.known[t][o]
            if knowers >> t & 1:
                if known[v]:
                    known[v] -= 1
            else:  # any known card might be the one that left
                for w in range(1, 11):
                    if known[w]:
                        known[w] -= 1

    def _deck_emptied(self) -> None:
        if not self.deck and self.end_seat < 0:
            self.end_seat = self.turn_of

    def _draw(self, s: int) -> None:
        v = self.deck.pop()
        self._hand_add(s, v, self.deck_known.pop())
        self._deck_emptied()

    def _place(self, s: int, v: int, r: int, p: int) -> tuple[bool, int]:
        """Seat ``s`` builds a v from its hand on seat ``r``'s row at ``p``; (completed, slot)."""
        self._hand_remove(s, v, self.all_seats)
        row, sums = self.rows[r], self.sums[r]
        if p < self.T:
            row[p].append(v)
            sums[p] += v
            slot = p
        elif p == self.T:  # every tower moves one slot to the right
            row.insert(0, [v])
            sums.insert(0, v)
            slot = 0
            self.rows_changed |= 1 << r
        else:
            row.append([v])
            sums.append(v)
            slot = len(row) - 1
        self.slots_touched.append((r, slot))
        if sums[slot] == TARGET:
            self._complete(r, slot, s)
            return True, slot
        return False, slot

    def _complete(self, r: int, slot: int, builder: int) -> None:
        tower = self.rows[r].pop(slot)
        self.sums[r].pop(slot)
        self.piles[r].append(tower)
        self.rows_changed |= 1 << r
        self.scores_changed = True  # scores, action card, bonus holders may all change
        d = self.deckinfo
        counts = [0] * 11
        for v in tower:
            counts[v] += 1
            self.sails[r] += d.sails[v]
            self.flags[r] += d.flags[v]
        self.action_up[r] = True
        holder = self.holder
        if counts[10]:
            self.ten_towers[r] += 1
            if self.ten_towers[r] >= 3 and holder[BIG_BEN] < 0 and d.in_play(BIG_BEN):
                holder[BIG_BEN] = r
        achieved = []
        if counts[1] + counts[2] + counts[3] == len(tower):
            achieved.append(SKY)
        if sum(c // 3 for c in counts) >= 2:
            achieved.append(TRIPLE)
        if counts[4] >= 4 or counts[5] >= 4:
            achieved.append(ROMANCE)
        if len(tower) == 3 and counts[7] == 3:
            achieved.append(LUCKY)
        if r == builder:
            self.completed_turn += 1
            if self.completed_turn >= 2:
                achieved.append(KING)
            if self.hand_size[r] == 0:
                achieved.append(PERFECT)
        for b in achieved:
            if d.in_play(b):
                holder[b] = r

    # ============================================================= the turn
    def _continue(self) -> None:
        """An action (with its effect) is over: go on with the turn, or end it."""
        self.phase = MAIN
        self.rush_slot = self.give_target = -1
        s = self.turn_of
        if self.actions_left > 0:
            acts = self.main_actions(s)
            if acts:
                self.current_player = s
                self._legal = acts
                return
        self._end_turn()

    def _end_turn(self) -> None:
        n = self.n
        while True:
            self.turns += 1
            s = self.turn_of
            if self.final and s == self.end_seat:
                self.phase = OVER
                self.current_player = -1
                return
            if self.end_seat >= 0:
                self.final = True
            s = self.turn_of = (s + 1) % n
            self.actions_left = FINAL_ACTIONS if self.final else TURN_ACTIONS
            self.completed_turn = 0
            if self.turns >= self.game.max_turns:  # truncated: a draw
                self.current_player = -1
                return
            acts = self.main_actions(s)
            if acts:
                self.current_player = s
                self._legal = acts
                return

    def apply_unchecked(self, action: int) -> None:
        self._legal = None
        kind, value, offset, place = self.layout.decode[action]
        phase = self.phase
        if phase == MAIN:
            self._main_action(kind, value, offset, place)
        elif phase == RUSH:
            self._rush(kind, place)
        elif phase == EXCHANGE_PHASE:
            self._exchange(kind, offset)
        elif phase == GIVE_PHASE:
            self._give(value)
        elif phase == PEEK:
            self._peek(kind)
        elif phase == ASK_PHASE:
            self._ask_or_draw(kind, value, offset)
        elif phase == DISCARD_PHASE:
            self._discard(value)

    # ======================================================== the decisions
    def _main_action(self, kind: int, value: int, offset: int, place: int) -> None:
        """One of the turn seat's actions: draw, take an open card, dismantle, or build (on
        its own row, or an 8 / 9 on the row of the seat at ``offset``) and open the built
        card's effect; or stop a final turn."""
        seat = self.turn_of
        if kind == STOP:
            self._end_turn()
            return
        self.actions_left -= 1
        if kind == DRAW:
            self._draw(seat)
        elif kind == TAKE:
            self._take_open(seat, value)
        elif kind == DISMANTLE:
            self._dismantle(seat, place)
        else:  # BUILD or CHAOS
            row_owner = seat if kind == BUILD else (seat + offset) % self.n
            completed, slot = self._place(seat, value, row_owner, place)
            if self._start_effect(seat, value, completed, slot):
                return
        self._continue()

    def _take_open(self, seat: int, value: int) -> None:
        """``seat`` takes the open card of ``value`` into its hand, in everyone's sight."""
        self.open[value] -= 1
        self.pool_changed = True
        self._hand_add(seat, value, self.all_seats)

    def _dismantle(self, seat: int, slot: int) -> None:
        """``seat`` takes its tower in ``slot`` back into its hand and turns its action card down."""
        tower = self.rows[seat].pop(slot)
        self.sums[seat].pop(slot)
        for card in tower:
            self._hand_add(seat, card, self.all_seats)
        self.action_up[seat] = False
        self.rows_changed |= 1 << seat
        self.scores_changed = True

    def _rush(self, kind: int, place: int) -> None:
        """The 4's rush: another 4 on the rushed tower (the rush goes on while one more fits
        and the tower is not complete), or stop."""
        seat = self.turn_of
        if kind == BUILD:
            completed, _ = self._place(seat, 4, seat, place)
            if not completed and self._rush_ok():
                self.current_player = seat
                return
        self._continue()

    def _exchange(self, kind: int, offset: int) -> None:
        """The 2's exchange: the turn seat draws a random card from the hand of the seat at
        ``offset`` (only the two of them see it) and gives one back next; or it declines."""
        if kind == EXCHANGE:
            seat = self.turn_of
            other = (seat + offset) % self.n
            pick = int(self.rng.integers(self.hand_size[other]))
            hand = self.hands[other]
            value = 1
            while pick >= hand[value]:
                pick -= hand[value]
                value += 1
            self._hand_remove(other, value, 1 << seat)
            self._hand_add(seat, value, 1 << other)
            self.phase = GIVE_PHASE
            self.give_target = other
            return
        self._continue()

    def _give(self, value: int) -> None:
        """The exchange's second half: the turn seat gives a card of ``value`` to its target."""
        seat, other = self.turn_of, self.give_target
        self._hand_remove(seat, value, 1 << other)
        self._hand_add(other, value, 1 << seat)
        self._continue()

    def _peek(self, kind: int) -> None:
        """The 3's peek: the deck's top card stays, or goes to the bottom."""
        if kind == BOTTOM:
            self.deck.insert(0, self.deck.pop())
            self.deck_known.insert(0, self.deck_known.pop())
        self._continue()

    def _ask_or_draw(self, kind: int, value: int, offset: int) -> None:
        """The 6: draw, or ask the seat at ``offset`` for a ``value``; it hands one over in
        everyone's sight, or everyone learns it holds none."""
        seat = self.turn_of
        if kind == DRAW:
            self._draw(seat)
        else:
            asked = (seat + offset) % self.n
            if self.hands[asked][value]:
                self._hand_remove(asked, value, self.all_seats)
                self._hand_add(seat, value, self.all_seats)
            else:
                bit = 1 << value
                for knower in range(self.n):
                    if knower != asked:
                        self.lacks[knower][asked] |= bit
        self._continue()

    def _discard(self, value: int) -> None:
        """The 5's return: the deciding seat discards a ``value``; once it is down to the hand
        limit the next seat over it decides, and when none is left the turn goes on."""
        seat = self.current_player
        self._hand_remove(seat, value, self.all_seats)
        self.discards[value] += 1
        self.pool_changed = True
        if self.hand_size[seat] <= HAND_SIZE:
            following = self.next_discarder()
            if following < 0:
                self._continue()
                return
            self.current_player = following

    def _start_effect(self, s: int, v: int, completed: bool, slot: int) -> bool:
        """Open the decision phase of the card just built, if it has one; True if opened."""
        n = self.n
        if v == 2:
            if any(self.hand_size[(s + o) % n] >= 2 for o in range(1, n)):
                self.phase = EXCHANGE_PHASE
                return True
        elif v == 3:
            if self.deck:
                self.deck_known[-1] |= 1 << s
                self.phase = PEEK
                return True
        elif v == 4:
            if not completed:
                self.rush_slot = slot
                if self._rush_ok():
                    self.phase = RUSH
                    return True
                self.rush_slot = -1
        elif v == 5:
            d = self.next_discarder()
            if d >= 0:
                self.phase = DISCARD_PHASE
                self.current_player = d
                return True
        elif v == 6:
            self.phase = ASK_PHASE
            return True
        elif v == 7:
            if self.deck:
                self.open[self.deck.pop()] += 1
                self.pool_changed = True
                self.deck_known.pop()
                self._deck_emptied()
        return False
