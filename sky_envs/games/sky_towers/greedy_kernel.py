"""The greedy baseline's moves in Sky Towers, compiled over the slots of a batch.

:class:`~sky_envs.agents.baselines.GreedyAgent` decides a hidden-information move in two
steps: it deals the cards its seat cannot see at random into a world consistent with
what the seat knows (``sampler.sample_consistent``), then plays every legal action on a
copy of that world and takes the one whose result the game's heuristic likes best (the
score lead; a finished game by ``WIN`` times its return), ties broken at random. In Python
that is a state clone per action, about 250 microseconds a move; :func:`greedy_actions`
does the same over :class:`~sky_envs.games.sky_towers.batched.SkyTowersBatch`'s arrays,
without leaving the compiled code:

* the deal draws what the Python sampler draws from the agent's generator, in the same
  order (the world's seed, the shuffle of the unseen cards, one uniform key per opponent
  to order the most constrained first, again on a failed deal), and gives the world the
  generator ``np.random.default_rng(seed)`` gives it;
* each action is played on a copy of the world by the batch's own ``_apply``;
* the tie among the best actions is broken by the agent's next draw.

So the moves, and the agent's generator afterwards, are the Python agent's, bit for bit
(``tests/agents/test_compiled_greedy.py``). Like the batch kernels it allocates
nothing: the caller hands it a two-slot scratch batch (slot 0 the world, slot 1 the copy
an action is played on) and the work arrays.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.batched_kernel import greedy_pick, legal_list
from sky_envs.core.numpy_random import integers, random_double, random_interval, seed_default_rng
from sky_envs.games.sky_towers.batched_kernel import (CUR, DECK_LEN, HAND_SIZE_F, NUM_BONUSES, PHASE, PLAYERS,
                                                      SAILS, _apply, _compiled, _write_mask, _write_returns)
from sky_envs.games.sky_towers.rules import OVER
from sky_envs.games.sky_towers.sampler import MAX_TRIES

_SEED_HIGH = (1 << 63) - 1               # the sampler's rng.integers(0, 2**63 - 1)


@_compiled
def _copy_slot(dst, d, src, s):
    """``dst[d] = src[s]`` for the state arrays (2 to 4 dimensions), element by element."""
    a, b = dst[d], src[s]
    flat_a, flat_b = a.reshape(a.size), b.reshape(b.size)
    for k in range(flat_a.size):
        flat_a[k] = flat_b[k]


@_compiled
def _copy_state(d, s, src, dst):
    """Slot ``s`` of the 14 state arrays ``src`` into slot ``d`` of ``dst``."""
    _copy_slot(dst[0], d, src[0], s)
    _copy_slot(dst[1], d, src[1], s)
    _copy_slot(dst[2], d, src[2], s)
    _copy_slot(dst[3], d, src[3], s)
    _copy_slot(dst[4], d, src[4], s)
    _copy_slot(dst[5], d, src[5], s)
    _copy_slot(dst[6], d, src[6], s)
    _copy_slot(dst[7], d, src[7], s)
    _copy_slot(dst[8], d, src[8], s)
    _copy_slot(dst[9], d, src[9], s)
    _copy_slot(dst[10], d, src[10], s)
    _copy_slot(dst[11], d, src[11], s)
    _copy_slot(dst[12], d, src[12], s)
    _copy_slot(dst[13], d, src[13], s)


@_compiled
def _popcount(mask):
    count = 0
    while mask:
        count += mask & 1
        mask >>= 1
    return count


@_compiled
def _score(i, s, seats, holder, bonus_sails):
    """``SkyTowersState.score``: sails plus the sails of the bonuses ``s`` holds."""
    score = seats[i, s, SAILS]
    for b in range(NUM_BONUSES):
        if holder[i, b] == s:
            score += bonus_sails[b]
    return score


@_compiled
def _deal(n, unseen, pool, owner, needs, order, keys, agent):
    """``sampler._deal``: shuffle the ``n`` unseen cards into ``pool`` and give each need
    (``needs[k]``: seat, count, forbidden values) its count, the most constrained first;
    ``owner[j]`` the need that took ``pool[j]``, -1 for the deck. False if a need cannot
    be met (the draws are made all the same, as the Python sampler makes them)."""
    for j in range(n):
        pool[j] = unseen[j]
        owner[j] = -1
    for j in range(n - 1, 0, -1):                    # Generator.shuffle
        k = random_interval(agent, j)
        pool[j], pool[k] = pool[k], pool[j]
    m = needs.shape[0]
    for k in range(m):                               # sorted(key=(-popcount, rng.random())): keys in order
        keys[k] = random_double(agent)
        order[k] = k
    for a in range(1, m):                            # a stable insertion sort on (-popcount, key)
        k = order[a]
        b = a - 1
        while b >= 0:
            o = order[b]
            if (-_popcount(needs[o, 2]), keys[o]) <= (-_popcount(needs[k, 2]), keys[k]):
                break
            order[b + 1] = o
            b -= 1
        order[b + 1] = k
    for a in range(m):
        k = order[a]
        count, forbidden = needs[k, 1], needs[k, 2]
        for j in range(n):
            if count == 0:
                break
            if owner[j] < 0 and not (forbidden >> pool[j]) & 1:
                owner[j] = k
                count -= 1
        if count > 0:
            return False
    return True


@_compiled
def _sample_world(i, seat, agent, src, world, row_mask, unseen, pool, owner, needs, order, keys, hidden, config):
    """``sampler.sample_consistent(state of slot i, seat, agent's rng)`` into slot 0 of
    ``world``: the cards ``seat`` cannot see dealt at random, its knowledge kept."""
    P = config[PLAYERS]
    hands, seats, known, lacks, deck, deck_known = src[0][i], src[1][i], src[2][i], src[3][i], src[6][i], src[7][i]
    seed = integers(agent, 0, _SEED_HIGH)
    n = 0
    m = 0
    for o in range(P):
        if o == seat:
            continue
        known_total = 0
        for v in range(11):
            known_total += known[seat, o, v]
        for v in range(1, 11):
            for _ in range(hands[o, v] - known[seat, o, v]):
                unseen[n] = v
                n += 1
        needs[m, 0], needs[m, 1], needs[m, 2] = o, seats[o, HAND_SIZE_F] - known_total, lacks[seat, o]
        m += 1
    hidden_count = 0
    for j in range(src[12][i, DECK_LEN]):
        if not (deck_known[j] >> seat) & 1:
            hidden[hidden_count] = j
            unseen[n] = deck[j]
            hidden_count += 1
            n += 1
    for a in range(1, n):                            # sorted: the sample depends on the agent's draws alone
        v = unseen[a]
        b = a - 1
        while b >= 0 and unseen[b] > v:
            unseen[b + 1] = unseen[b]
            b -= 1
        unseen[b + 1] = v
    w_hands, w_known, w_lacks, w_deck, w_deck_known = world[0][0], world[2][0], world[3][0], world[6][0], world[7][0]
    w_bitgen = world[13][0]
    for _ in range(MAX_TRIES):
        if not _deal(n, unseen, pool, owner, needs[:m], order, keys, agent):
            continue
        _copy_state(0, i, src, world)
        seed_default_rng(w_bitgen, seed)
        for k in range(m):                           # the opponents' hands: what the seat knows, then the deal
            o = needs[k, 0]
            for v in range(11):
                w_hands[o, v] = known[seat, o, v]
        taken = 0
        for j in range(n):
            if owner[j] >= 0:
                w_hands[needs[owner[j], 0], pool[j]] += 1
            else:                                    # the deck's hidden places, in order
                place = hidden[taken]
                taken += 1
                if w_deck[place] != pool[j]:
                    w_deck[place] = pool[j]
                    w_deck_known[place] &= 1 << seat
        for t in range(P):                           # the other seats' knowledge stays true
            if t == seat:
                continue
            for o in range(P):
                if o == t:
                    continue
                for v in range(1, 11):
                    if w_known[t, o, v] > w_hands[o, v]:
                        w_known[t, o, v] = w_hands[o, v]
                    if w_hands[o, v]:
                        w_lacks[t, o] &= ~(1 << v)
        if world[12][0, CUR] < 0:
            return
        _write_mask(row_mask, 0, world[0], world[1], world[4], world[5], world[8], world[12], config)
        if row_mask.any():
            return
    _copy_state(0, i, src, world)                    # the true deal always satisfies the constraints
    seed_default_rng(w_bitgen, seed)


@_compiled
def greedy_actions(slots, out, agent, win, row_mask, legal, values, returns, unseen, pool, owner, needs, order, keys,
                   hidden, *arrays):
    """The greedy agent's action for the seat to move in each of ``slots`` (in that order,
    all drawing from ``agent``, the agent's generator words), into ``out``.

    ``arrays``: the batch's 14 state arrays, the scratch batch's 14 (two slots), then the
    tables ``decode``, ``card_sails``, ``card_flags``, ``bonus_sails`` and ``config``."""
    src, world = arrays[0:14], arrays[14:28]
    decode, card_sails, card_flags, bonus_sails, config = arrays[28:33]
    P = config[PLAYERS]
    w_seats, w_holder, w_scalars = world[1], world[9], world[12]
    for k in range(slots.shape[0]):
        i = slots[k]
        seat = src[12][i, CUR]
        _sample_world(i, seat, agent, src, world, row_mask, unseen, pool, owner, needs, order, keys, hidden, config)
        _write_mask(row_mask, 0, world[0], world[1], world[4], world[5], world[8], world[12], config)
        count = legal_list(row_mask, legal)
        for c in range(count):                       # played_value of each action on a copy of the world
            _copy_state(1, 0, world, world)
            _write_mask(row_mask, 1, world[0], world[1], world[4], world[5], world[8], world[12], config)
            _apply(legal[c], row_mask, 1, world[0], world[1], world[2], world[3], world[4], world[5], world[6],
                   world[7], world[8], world[9], world[10], world[11], world[12], world[13], decode, card_sails,
                   card_flags, bonus_sails, config)
            if w_scalars[1, PHASE] == OVER:
                returns[1, :] = 0.0
                _write_returns(returns, 1, w_seats, w_holder, w_scalars, bonus_sails, P)
                value = win * np.float64(returns[1, seat])
            else:
                own = _score(1, seat, w_seats, w_holder, bonus_sails)
                rival = -1 << 30
                for o in range(P):
                    if o != seat:
                        rival = max(rival, _score(1, o, w_seats, w_holder, bonus_sails))
                value = np.float64(own - rival)
            values[c] = value
        out[k] = greedy_pick(legal, values, count, agent)
