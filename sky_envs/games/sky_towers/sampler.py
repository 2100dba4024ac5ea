"""Determinisation: a full state consistent with everything one seat knows.

What a seat knows beyond its observation is tracked by the state as play goes:

* ``known[seat][o][v]``: cards of value v it knows seat o holds (from a dismantle, an open
  card taken, a 6's answer, a card it gave in an exchange, a card it peeked that o drew...);
* ``lacks[seat][o]``: values it knows o does not hold (a 6 asked in vain, until o gains a
  card the seat does not see);
* ``deck_known``: deck cards it peeked (with their position: top, or moved to the bottom).

Everything else in the opponents' hands and the deck is *unseen*: the sampler shuffles the
unseen cards and deals them back into the same places (same hand sizes, same deck size),
honouring the ``lacks`` constraints. Its own hand, every public zone and all knowledge stay.
"""

from __future__ import annotations

import numpy as np

MAX_TRIES = 50


def _deal(unseen: list[int], needs: list[tuple[int, int, int]], rng: np.random.Generator) -> list[list[int]] | None:
    """Give each ``(seat, count, forbidden-mask)`` its count of cards, the rest to the deck."""
    pool = list(unseen)
    rng.shuffle(pool)
    # the most constrained seats first; ties broken at random
    order = sorted(needs, key=lambda need: (-bin(need[2]).count("1"), rng.random()))
    out = {}
    for seat, count, forbidden in order:
        allowed = [i for i, v in enumerate(pool) if not forbidden >> v & 1]
        if len(allowed) < count:
            return None
        chosen = set(allowed[:count])  # pool is shuffled: the first allowed ones are a random pick
        out[seat] = [pool[i] for i in sorted(chosen)]
        pool = [v for i, v in enumerate(pool) if i not in chosen]
    return [out[seat] for seat, _, _ in needs] + [pool]


def sample_consistent(state, seat: int, rng: np.random.Generator):
    n = state.n
    new = state.clone()
    new.rng = np.random.default_rng(int(rng.integers(0, 2**63 - 1)))
    unseen: list[int] = []
    needs = []
    for o in range(n):
        if o == seat:
            continue
        known = state.known[seat][o]
        for v in range(1, 11):
            unseen.extend([v] * (state.hands[o][v] - known[v]))
        needs.append((o, state.hand_size[o] - sum(known), state.lacks[seat][o]))
    hidden_slots = [i for i, mask in enumerate(state.deck_known) if not mask >> seat & 1]
    unseen.extend(state.deck[i] for i in hidden_slots)
    unseen.sort()  # forget where the unseen cards really are: the sample depends on rng alone
    for _ in range(MAX_TRIES):
        dealt = _deal(unseen, needs, rng)
        if dealt is None:
            continue
        world = _dealt_world(state, new.clone(), seat, needs, hidden_slots, dealt)
        # the seat to decide has a legal action: every seat sees that, so a sample must keep it
        if world.current_player < 0 or world.legal_list():
            return world
    return new  # the true deal always satisfies the constraints


def _dealt_world(state, new, seat: int, needs, hidden_slots: list[int], dealt: list[list[int]]):
    """``new`` (a clone of ``state``) with the unseen cards dealt as ``dealt`` says."""
    n = state.n
    for (o, _, _), cards in zip(needs, dealt):
        hand = list(state.known[seat][o])
        for v in cards:
            hand[v] += 1
        new.hands[o] = hand
    for i, v in zip(hidden_slots, dealt[-1]):
        if new.deck[i] != v:
            new.deck[i] = v
            new.deck_known[i] &= 1 << seat  # others' peeks of the old card no longer apply
    # other seats' knowledge must stay true in the sampled world
    for t in range(n):
        if t == seat:
            continue
        for o in range(n):
            if o == t:
                continue
            known, hand = new.known[t][o], new.hands[o]
            for v in range(1, 11):
                if known[v] > hand[v]:
                    known[v] = hand[v]
                if hand[v]:
                    new.lacks[t][o] &= ~(1 << v)
    new.hands_redealt()
    return new
