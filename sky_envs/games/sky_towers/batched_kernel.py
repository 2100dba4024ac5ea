"""The compiled rules core of Sky Towers over arrays of games (numba, one slot per row).

The readable engine is :class:`~sky_envs.games.sky_towers.state.SkyTowersState`; this
module plays the same games over a structure of arrays (leading dimension: the slot) for
:class:`~sky_envs.games.sky_towers.batched.SkyTowersBatch`, which builds the arguments and
names every array. Each rule step of the state has its function here, with the state's
name: :func:`_main_action`, :func:`_rush`, :func:`_exchange`, :func:`_give`,
:func:`_peek`, :func:`_ask_or_draw`, :func:`_discard`, :func:`_place`, :func:`_complete`,
:func:`_start_effect`, :func:`_continue`, :func:`_end_turn`, and the card moves that keep
what each seat knows (``_hand_add`` / ``_hand_remove``), so that a slot's position,
hidden cards and knowledge included, is always the one the state would hold.

How a slot is kept (``batched.py`` allocates it):

* ``hands[i, s, v]`` cards of value v in seat s's hand; ``known[i, t, o, v]`` and
  ``lacks[i, t, o]`` the state's ``known`` / ``lacks``;
* ``seats[i, s, field]`` the seat's counters (hand size, sails, flags, towers with a 10,
  action card, row length, score pile cards and towers);
* a row is ``order[i, s, :row length]``, the storage places of its towers from left to
  right, the free places after them; ``towers[i, s, place]`` holds a tower's cards
  (bottom first), its height and its sum. A new tower at the left end or a completed
  tower moves only places in ``order``, never cards;
* ``deck[i, :deck length]`` (top card last, as the state's list) with ``deck_known``;
  ``pools[i, 0]`` the open pool and ``pools[i, 1]`` the 5's discards, by value;
* ``pile_log`` the cards of every completed tower in completion order, ``pile_towers``
  each one's owner and height (the score piles of ``get_state``);
* ``scalars[i, field]`` the turn's facts (turns, turn seat, phase, ...) and the seat to
  decide (``CUR``, -1 once the game is over or cut);
* ``bitgen[i]`` the slot's generator (:mod:`sky_envs.core.numpy_random`): the set-up's
  shuffle and first seat and the 2's random pick are the draws ``np.random.default_rng``
  makes in the Python engine, in the same order.

The kernels allocate nothing (compiled without reference counting): the caller hands
them all arrays, the shuffle's scratch included.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sky_envs.core.batched import REFRESH, RESTART, STEP
from sky_envs.core.batched_kernel import forget_last_end, playout_ended, random_legal_action
from sky_envs.core.numpy_random import NO_REFCOUNT_COMPILE, integers, permutation, seed_default_rng
from sky_envs.games.sky_towers.deck import BIG_BEN, HAND_SIZE, KING, LUCKY, PERFECT, ROMANCE, SKY, TRIPLE
from sky_envs.games.sky_towers.layout import BOTTOM, BUILD, DISMANTLE, DRAW, EXCHANGE, STOP, TAKE
from sky_envs.games.sky_towers.rules import (ASK_PHASE, DISCARD_PHASE, EXCHANGE_PHASE, FINAL_ACTIONS, GIVE_PHASE,
                                             MAIN, OVER, PEEK, RUSH, TARGET, TURN_ACTIONS)

NUM_PHASES = OVER  # phases of decision (the observation's one-hot)
NUM_BONUSES = 7

# seats[i, s, field]
HAND_SIZE_F, SAILS, FLAGS, TENS, ACTION_UP, ROW_LEN, PILE_CARDS, PILE_TOWERS, SEAT_FIELDS = range(9)
# towers[i, s, place, field]: cards 0..TARGET - 1 (a tower holds at most 21 cards), then
TOWER_HEIGHT, TOWER_SUM, TOWER_FIELDS = TARGET, TARGET + 1, TARGET + 2
# scalars[i, field]
(TURNS, TURN_OF, ACTIONS_LEFT, PHASE, RUSH_SLOT, GIVE_TARGET, COMPLETED, END_SEAT, FINAL, CUR, DECK_LEN,
 LOGGED_TOWERS, LOGGED_CARDS, SCALARS) = range(14)
# pools[i, pool, v]
OPEN_POOL, DISCARD_POOL = 0, 1
# config entries (``batched.py`` writes them from the game's layouts)
(PLAYERS, SLOTS, WIDTH, AT_DISMANTLE, AT_BUILD, AT_CHAOS, AT_STOP, AT_GIVE, AT_KEEP, AT_BOTTOM, AT_ASK, AT_DISCARD,
 MAX_TURNS, FIRST_RANDOM, TOTAL, KEEP_FINAL, SEAT_BLOCK, O_DECK, O_OPEN, O_DISCARDS, O_PHASE, O_RUSH, O_PEEK,
 O_ACTIONS, CONFIG_SIZE) = range(25)

_compiled = njit(**NO_REFCOUNT_COMPILE, nogil=True, error_model="numpy")


# ------------------------------------------------------------------ card moves and knowledge
@_compiled
def _hand_add(i, o, v, knowers, hands, seats, known, lacks, P):
    """``SkyTowersState._hand_add``: seat ``o`` gains a v; seats in ``knowers`` (a bit per
    seat; -1: every seat) see it."""
    hands[i, o, v] += 1
    seats[i, o, HAND_SIZE_F] += 1
    for t in range(P):
        if t != o:
            if (knowers >> t) & 1:
                known[i, t, o, v] += 1
                lacks[i, t, o] &= ~(1 << v)
            else:
                lacks[i, t, o] = 0


@_compiled
def _hand_remove(i, o, v, knowers, hands, seats, known, P):
    """``SkyTowersState._hand_remove``: seat ``o`` loses a v; seats in ``knowers`` see its
    value, for the others any card they knew of might be the one that left."""
    hands[i, o, v] -= 1
    seats[i, o, HAND_SIZE_F] -= 1
    for t in range(P):
        if t == o:
            continue
        if (knowers >> t) & 1:
            if known[i, t, o, v] > 0:
                known[i, t, o, v] -= 1
        else:
            for w in range(1, 11):
                if known[i, t, o, w] > 0:
                    known[i, t, o, w] -= 1


@_compiled
def _draw(i, s, deck, deck_known, hands, seats, known, lacks, scalars, P):
    """``SkyTowersState._draw``: ``s`` takes the deck's top card (its peekers know it)."""
    top = scalars[i, DECK_LEN] - 1
    scalars[i, DECK_LEN] = top
    _hand_add(i, s, deck[i, top], deck_known[i, top], hands, seats, known, lacks, P)
    _deck_emptied(i, scalars)


@_compiled
def _deck_emptied(i, scalars):
    if scalars[i, DECK_LEN] == 0 and scalars[i, END_SEAT] < 0:
        scalars[i, END_SEAT] = scalars[i, TURN_OF]


# ------------------------------------------------------------------ rows
@_compiled
def _top(i, s, slot, order, towers):
    """The top card of seat ``s``'s tower in row slot ``slot``."""
    place = order[i, s, slot]
    return towers[i, s, place, towers[i, s, place, TOWER_HEIGHT] - 1]


@_compiled
def _remove_tower(i, s, slot, order, seats):
    """Take the tower in ``slot`` out of seat ``s``'s row (the others close up); its
    storage place, whose cards stay readable until a new tower takes it."""
    length = seats[i, s, ROW_LEN]
    place = order[i, s, slot]
    for t in range(slot, length - 1):
        order[i, s, t] = order[i, s, t + 1]
    order[i, s, length - 1] = place
    seats[i, s, ROW_LEN] = length - 1
    return place


@_compiled
def _blocked_values(i, s, order, towers, seats, P):
    """``SkyTowersState.blocked_values``: bit v set when ``s`` may not build a v."""
    mask = 0
    left = s - 1 if s > 0 else P - 1
    length = seats[i, left, ROW_LEN]
    if length > 0:
        mask |= 1 << _top(i, left, length - 1, order, towers)
    right = s + 1 if s < P - 1 else 0
    if seats[i, right, ROW_LEN] > 0:
        mask |= 1 << _top(i, right, 0, order, towers)
    return mask


# ------------------------------------------------------------------ masks
@_compiled
def _slot_actions(row_mask, base, v, i, r, order, towers, seats, T):
    """``SkyTowersState._slot_actions``: mark ``base + p`` where a v may go on seat ``r``'s
    row; the number marked."""
    length = seats[i, r, ROW_LEN]
    count = 0
    if v == 1:
        for p in range(length):
            if towers[i, r, order[i, r, p], TOWER_SUM] < TARGET:
                row_mask[base + p] = True
                count += 1
    elif v != 10 and length > 0:
        room = TARGET - v
        for p in range(length):
            place = order[i, r, p]
            if towers[i, r, place, TOWER_SUM] <= room and towers[i, r, place, towers[i, r, place, TOWER_HEIGHT] - 1] != 1:
                row_mask[base + p] = True
                count += 1
    if length < T:
        row_mask[base + T] = True
        row_mask[base + T + 1] = True
        count += 2
    return count


@_compiled
def _main_actions(row_mask, i, s, hands, seats, order, towers, pools, scalars, config):
    """``SkyTowersState.main_actions`` of seat ``s`` into ``row_mask`` (all False on entry);
    the number of legal actions."""
    P, T, W = config[PLAYERS], config[SLOTS], config[WIDTH]
    count = 0
    if scalars[i, DECK_LEN] > 0:
        row_mask[0] = True
        count += 1
    for v in range(1, 11):
        if pools[i, OPEN_POOL, v] > 0:
            row_mask[v] = True
            count += 1
    length = seats[i, s, ROW_LEN]
    if seats[i, s, ACTION_UP] and length > 0:
        for t in range(length):
            row_mask[config[AT_DISMANTLE] + t] = True
        count += length
    blocked = _blocked_values(i, s, order, towers, seats, P)
    for v in range(1, 11):
        if hands[i, s, v] == 0 or (blocked >> v) & 1:
            continue
        count += _slot_actions(row_mask, config[AT_BUILD] + (v - 1) * W, v, i, s, order, towers, seats, T)
        if v == 8 or v == 9:
            for o in range(1, P):
                r = s + o if s + o < P else s + o - P
                count += _slot_actions(row_mask, config[AT_CHAOS] + ((v - 8) * 3 + o - 1) * W, v, i, r, order,
                                       towers, seats, T)
    if scalars[i, FINAL] and count > 0:
        row_mask[config[AT_STOP]] = True
        count += 1
    return count


@_compiled
def _rush_ok(i, hands, seats, order, towers, scalars, P):
    """``SkyTowersState._rush_ok``: another 4 fits on the rushed tower."""
    s = scalars[i, TURN_OF]
    place = order[i, s, scalars[i, RUSH_SLOT]]
    return (hands[i, s, 4] > 0 and towers[i, s, place, TOWER_SUM] + 4 <= TARGET
            and not (_blocked_values(i, s, order, towers, seats, P) >> 4) & 1)


@_compiled
def _write_mask(row_mask, i, hands, seats, order, towers, pools, scalars, config):
    """``SkyTowersState.legal_list`` of the pending decision into ``row_mask`` (cleared here)."""
    P = config[PLAYERS]
    row_mask[:] = False
    phase, s = scalars[i, PHASE], scalars[i, TURN_OF]
    if phase == MAIN:
        _main_actions(row_mask, i, s, hands, seats, order, towers, pools, scalars, config)
    elif phase == RUSH:
        row_mask[config[AT_STOP]] = True
        if _rush_ok(i, hands, seats, order, towers, scalars, P):
            row_mask[config[AT_BUILD] + 3 * config[WIDTH] + scalars[i, RUSH_SLOT]] = True
    elif phase == EXCHANGE_PHASE:
        row_mask[config[AT_STOP]] = True
        for o in range(1, P):
            if seats[i, (s + o) % P, HAND_SIZE_F] >= 2:
                row_mask[config[AT_STOP] + o] = True
    elif phase == GIVE_PHASE:
        for v in range(1, 11):
            if hands[i, s, v] > 0:
                row_mask[config[AT_GIVE] + v] = True
    elif phase == PEEK:
        row_mask[config[AT_KEEP]] = True
        row_mask[config[AT_BOTTOM]] = True
    elif phase == ASK_PHASE:
        if scalars[i, DECK_LEN] > 0:
            row_mask[0] = True
        for a in range(config[AT_ASK] + 1, config[AT_ASK] + 1 + 10 * (P - 1)):
            row_mask[a] = True
    elif phase == DISCARD_PHASE:
        cur = scalars[i, CUR]
        for v in range(1, 11):
            if hands[i, cur, v] > 0:
                row_mask[config[AT_DISCARD] + v] = True


# ------------------------------------------------------------------ building and scoring
@_compiled
def _complete(i, r, slot, builder, hands, seats, known, order, towers, holder, pile_log, pile_towers, scalars,
              card_sails, card_flags, bonus_sails):
    """``SkyTowersState._complete``: seat ``r``'s tower in ``slot`` is complete: to its
    score pile, sails and flags counted, action card up, bonuses claimed."""
    place = _remove_tower(i, r, slot, order, seats)
    height = towers[i, r, place, TOWER_HEIGHT]
    logged = scalars[i, LOGGED_CARDS]
    low, tens, fours, fives, sevens = 0, 0, 0, 0, 0
    for k in range(height):
        v = towers[i, r, place, k]
        pile_log[i, logged + k] = v
        seats[i, r, SAILS] += card_sails[v]
        seats[i, r, FLAGS] += card_flags[v]
        low += v <= 3
        tens += v == 10
        fours += v == 4
        fives += v == 5
        sevens += v == 7
    triples = 0  # sum over values of count // 3
    for w in range(1, 11):
        same = 0
        for k in range(height):
            same += towers[i, r, place, k] == w
        triples += same // 3
    scalars[i, LOGGED_CARDS] = logged + height
    pile_towers[i, scalars[i, LOGGED_TOWERS]] = r * 32 + height
    scalars[i, LOGGED_TOWERS] += 1
    seats[i, r, PILE_CARDS] += height
    seats[i, r, PILE_TOWERS] += 1
    seats[i, r, ACTION_UP] = 1
    if tens:
        seats[i, r, TENS] += 1
        if seats[i, r, TENS] >= 3 and holder[i, BIG_BEN] < 0 and bonus_sails[BIG_BEN] >= 0:
            holder[i, BIG_BEN] = r
    achieved = 0
    if low == height:
        achieved |= 1 << SKY
    if triples >= 2:
        achieved |= 1 << TRIPLE
    if fours >= 4 or fives >= 4:
        achieved |= 1 << ROMANCE
    if height == 3 and sevens == 3:
        achieved |= 1 << LUCKY
    if r == builder:
        scalars[i, COMPLETED] += 1
        if scalars[i, COMPLETED] >= 2:
            achieved |= 1 << KING
        if seats[i, r, HAND_SIZE_F] == 0:
            achieved |= 1 << PERFECT
    for b in range(NUM_BONUSES):
        if (achieved >> b) & 1 and bonus_sails[b] >= 0:
            holder[i, b] = r


@_compiled
def _place(i, s, v, r, p, hands, seats, known, order, towers, holder, pile_log, pile_towers, scalars, card_sails,
           card_flags, bonus_sails, P, T):
    """``SkyTowersState._place``: ``s`` builds a v from its hand on seat ``r``'s row at
    ``p``; (completed, the tower's slot)."""
    _hand_remove(i, s, v, -1, hands, seats, known, P)
    length = seats[i, r, ROW_LEN]
    if p < T:
        slot = p
        place = order[i, r, p]
        height = towers[i, r, place, TOWER_HEIGHT]
        towers[i, r, place, height] = v
        towers[i, r, place, TOWER_HEIGHT] = height + 1
        towers[i, r, place, TOWER_SUM] += v
    else:
        place = order[i, r, length]  # the first free place
        if p == T:  # every tower moves one slot to the right
            for t in range(length, 0, -1):
                order[i, r, t] = order[i, r, t - 1]
            order[i, r, 0] = place
            slot = 0
        else:
            slot = length
        seats[i, r, ROW_LEN] = length + 1
        towers[i, r, place, 0] = v
        towers[i, r, place, TOWER_HEIGHT] = 1
        towers[i, r, place, TOWER_SUM] = v
    if towers[i, r, place, TOWER_SUM] == TARGET:
        _complete(i, r, slot, s, hands, seats, known, order, towers, holder, pile_log, pile_towers, scalars,
                  card_sails, card_flags, bonus_sails)
        return True, slot
    return False, slot


@_compiled
def _next_discarder(i, seats, scalars, P):
    """``SkyTowersState.next_discarder``: the first seat from the turn seat on holding more
    than ``HAND_SIZE`` cards, or -1."""
    for k in range(P):
        seat = (scalars[i, TURN_OF] + k) % P
        if seats[i, seat, HAND_SIZE_F] > HAND_SIZE:
            return seat
    return -1


@_compiled
def _start_effect(i, s, v, completed, slot, hands, seats, order, towers, deck, deck_known, pools, scalars, P):
    """``SkyTowersState._start_effect``: open the decision phase of the card just built, if
    it has one; True if opened."""
    if v == 2:
        for o in range(1, P):
            if seats[i, (s + o) % P, HAND_SIZE_F] >= 2:
                scalars[i, PHASE] = EXCHANGE_PHASE
                return True
    elif v == 3:
        if scalars[i, DECK_LEN] > 0:
            deck_known[i, scalars[i, DECK_LEN] - 1] |= 1 << s
            scalars[i, PHASE] = PEEK
            return True
    elif v == 4:
        if not completed:
            scalars[i, RUSH_SLOT] = slot
            if _rush_ok(i, hands, seats, order, towers, scalars, P):
                scalars[i, PHASE] = RUSH
                return True
            scalars[i, RUSH_SLOT] = -1
    elif v == 5:
        d = _next_discarder(i, seats, scalars, P)
        if d >= 0:
            scalars[i, PHASE] = DISCARD_PHASE
            scalars[i, CUR] = d
            return True
    elif v == 6:
        scalars[i, PHASE] = ASK_PHASE
        return True
    elif v == 7:
        top = scalars[i, DECK_LEN] - 1
        if top >= 0:
            pools[i, OPEN_POOL, deck[i, top]] += 1
            scalars[i, DECK_LEN] = top
            _deck_emptied(i, scalars)
    return False


# ------------------------------------------------------------------ the turn
@_compiled
def _end_turn(row_mask, i, hands, seats, order, towers, pools, scalars, config):
    """``SkyTowersState._end_turn``: the next seat with a legal main action gets the turn
    (its mask written into ``row_mask``), or the game ends, or ``max_turns`` cuts it."""
    P = config[PLAYERS]
    while True:
        scalars[i, TURNS] += 1
        s = scalars[i, TURN_OF]
        if scalars[i, FINAL] and s == scalars[i, END_SEAT]:
            scalars[i, PHASE] = OVER
            scalars[i, CUR] = -1
            return
        if scalars[i, END_SEAT] >= 0:
            scalars[i, FINAL] = 1
        s = s + 1 if s < P - 1 else 0
        scalars[i, TURN_OF] = s
        scalars[i, ACTIONS_LEFT] = FINAL_ACTIONS if scalars[i, FINAL] else TURN_ACTIONS
        scalars[i, COMPLETED] = 0
        if scalars[i, TURNS] >= config[MAX_TURNS]:  # truncated: a draw
            scalars[i, CUR] = -1
            return
        row_mask[:] = False
        if _main_actions(row_mask, i, s, hands, seats, order, towers, pools, scalars, config) > 0:
            scalars[i, CUR] = s
            return


@_compiled
def _continue(row_mask, i, hands, seats, order, towers, pools, scalars, config):
    """``SkyTowersState._continue``: an action (with its effect) is over: the turn goes on
    (its mask written into ``row_mask``), or ends."""
    scalars[i, PHASE] = MAIN
    scalars[i, RUSH_SLOT] = -1
    scalars[i, GIVE_TARGET] = -1
    s = scalars[i, TURN_OF]
    if scalars[i, ACTIONS_LEFT] > 0:
        row_mask[:] = False
        if _main_actions(row_mask, i, s, hands, seats, order, towers, pools, scalars, config) > 0:
            scalars[i, CUR] = s
            return
    _end_turn(row_mask, i, hands, seats, order, towers, pools, scalars, config)


@_compiled
def _apply(action, row_mask, i, hands, seats, known, lacks, order, towers, deck, deck_known, pools, holder, pile_log,
           pile_towers, scalars, bitgen, decode, card_sails, card_flags, bonus_sails, config):
    """``SkyTowersState.apply_unchecked`` of a legal ``action``. Where the position ends in
    the main phase with a seat to move, its mask is in ``row_mask``; other phases' masks
    are the caller's to write."""
    P, T = config[PLAYERS], config[SLOTS]
    kind, value, offset, place = decode[action, 0], decode[action, 1], decode[action, 2], decode[action, 3]
    phase = scalars[i, PHASE]
    seat = scalars[i, TURN_OF]
    if phase == MAIN:  # _main_action
        if kind == STOP:
            _end_turn(row_mask, i, hands, seats, order, towers, pools, scalars, config)
            return
        scalars[i, ACTIONS_LEFT] -= 1
        if kind == DRAW:
            _draw(i, seat, deck, deck_known, hands, seats, known, lacks, scalars, P)
        elif kind == TAKE:  # _take_open
            pools[i, OPEN_POOL, value] -= 1
            _hand_add(i, seat, value, -1, hands, seats, known, lacks, P)
        elif kind == DISMANTLE:  # _dismantle
            where = _remove_tower(i, seat, place, order, seats)
            for k in range(towers[i, seat, where, TOWER_HEIGHT]):
                _hand_add(i, seat, towers[i, seat, where, k], -1, hands, seats, known, lacks, P)
            seats[i, seat, ACTION_UP] = 0
        else:  # BUILD or CHAOS
            owner = seat if kind == BUILD else (seat + offset) % P
            completed, slot = _place(i, seat, value, owner, place, hands, seats, known, order, towers, holder,
                                     pile_log, pile_towers, scalars, card_sails, card_flags, bonus_sails, P, T)
            if _start_effect(i, seat, value, completed, slot, hands, seats, order, towers, deck, deck_known, pools,
                             scalars, P):
                return
    elif phase == RUSH:  # _rush
        if kind == BUILD:
            completed, _ = _place(i, seat, 4, seat, place, hands, seats, known, order, towers, holder, pile_log,
                                  pile_towers, scalars, card_sails, card_flags, bonus_sails, P, T)
            if not completed and _rush_ok(i, hands, seats, order, towers, scalars, P):
                return
    elif phase == EXCHANGE_PHASE:  # _exchange
        if kind == EXCHANGE:
            other = (seat + offset) % P
            pick = integers(bitgen[i], 0, seats[i, other, HAND_SIZE_F])
            taken = 1
            while pick >= hands[i, other, taken]:
                pick -= hands[i, other, taken]
                taken += 1
            _hand_remove(i, other, taken, 1 << seat, hands, seats, known, P)
            _hand_add(i, seat, taken, 1 << other, hands, seats, known, lacks, P)
            scalars[i, PHASE] = GIVE_PHASE
            scalars[i, GIVE_TARGET] = other
            return
    elif phase == GIVE_PHASE:  # _give
        other = scalars[i, GIVE_TARGET]
        _hand_remove(i, seat, value, 1 << other, hands, seats, known, P)
        _hand_add(i, other, value, 1 << seat, hands, seats, known, lacks, P)
    elif phase == PEEK:  # _peek
        if kind == BOTTOM:
            top = scalars[i, DECK_LEN] - 1
            card, knowers = deck[i, top], deck_known[i, top]
            for k in range(top, 0, -1):
                deck[i, k] = deck[i, k - 1]
                deck_known[i, k] = deck_known[i, k - 1]
            deck[i, 0] = card
            deck_known[i, 0] = knowers
    elif phase == ASK_PHASE:  # _ask_or_draw
        if kind == DRAW:
            _draw(i, seat, deck, deck_known, hands, seats, known, lacks, scalars, P)
        else:
            asked = (seat + offset) % P
            if hands[i, asked, value] > 0:
                _hand_remove(i, asked, value, -1, hands, seats, known, P)
                _hand_add(i, seat, value, -1, hands, seats, known, lacks, P)
            else:
                for knower in range(P):
                    if knower != asked:
                        lacks[i, knower, asked] |= 1 << value
    elif phase == DISCARD_PHASE:  # _discard
        discarder = scalars[i, CUR]
        _hand_remove(i, discarder, value, -1, hands, seats, known, P)
        pools[i, DISCARD_POOL, value] += 1
        if seats[i, discarder, HAND_SIZE_F] > HAND_SIZE:
            return
        following = _next_discarder(i, seats, scalars, P)
        if following >= 0:
            scalars[i, CUR] = following
            return
    _continue(row_mask, i, hands, seats, order, towers, pools, scalars, config)


# ------------------------------------------------------------------ results
@_compiled
def _write_returns(rewards, i, seats, holder, scalars, bonus_sails, P):
    """``SkyTowersState.returns()`` of a finished game into row ``i`` of ``rewards`` (zeros):
    the most sails (bonuses held included) win, ties broken by flags; +1 / -1, all 0 when
    every seat wins."""
    best_score, best_flags, winners = -1, -1, 0
    for s in range(P):
        score = seats[i, s, SAILS]
        for b in range(NUM_BONUSES):
            if holder[i, b] == s:
                score += bonus_sails[b]
        flags = seats[i, s, FLAGS]
        if score > best_score or (score == best_score and flags > best_flags):
            best_score, best_flags, winners = score, flags, 0
        if score == best_score and flags == best_flags:
            winners |= 1 << s
    if winners == (1 << P) - 1:
        return
    for s in range(P):
        rewards[i, s] = 1.0 if (winners >> s) & 1 else -1.0


# ------------------------------------------------------------------ observations
@_compiled
def _observe(out, i, seat, hands, seats, order, towers, deck, pools, holder, scalars, config):
    """``ObservationLayout.observe(state, seat)`` into the flat row ``out``: every entry."""
    P, T, B = config[PLAYERS], config[SLOTS], config[SEAT_BLOCK]
    cur = scalars[i, CUR]
    playing = cur >= 0
    for v in range(1, 11):
        out[v - 1] = hands[i, seat, v]
    for k in range(P):
        s = seat + k if seat + k < P else seat + k - P
        base = 10 + k * B
        length = seats[i, s, ROW_LEN]
        for t in range(T):
            j = base + 3 * t
            if t < length:
                place = order[i, s, t]
                height = towers[i, s, place, TOWER_HEIGHT]
                out[j] = towers[i, s, place, TOWER_SUM]
                out[j + 1] = towers[i, s, place, height - 1]
                out[j + 2] = height
            else:
                out[j] = 0.0
                out[j + 1] = 0.0
                out[j + 2] = 0.0
        j = base + 3 * T
        out[j] = seats[i, s, SAILS]
        out[j + 1] = seats[i, s, FLAGS]
        out[j + 2] = seats[i, s, PILE_CARDS]
        out[j + 3] = seats[i, s, PILE_TOWERS]
        out[j + 4] = seats[i, s, TENS]
        out[j + 5] = seats[i, s, HAND_SIZE_F]
        out[j + 6] = seats[i, s, ACTION_UP]
        for b in range(NUM_BONUSES):
            out[j + 7 + b] = 1.0 if holder[i, b] == s else 0.0
        out[j + 14] = 1.0 if playing and scalars[i, TURN_OF] == s else 0.0
        out[j + 15] = 1.0 if playing and cur == s else 0.0
        out[j + 16] = 1.0 if scalars[i, END_SEAT] == s else 0.0
        out[j + 17] = 1.0 if scalars[i, GIVE_TARGET] == s else 0.0
    deck_len = scalars[i, DECK_LEN]
    out[config[O_DECK]] = deck_len
    for v in range(1, 11):
        out[config[O_OPEN] + v - 1] = pools[i, OPEN_POOL, v]
        out[config[O_DISCARDS] + v - 1] = pools[i, DISCARD_POOL, v]
    phase = scalars[i, PHASE]
    for p in range(NUM_PHASES):
        out[config[O_PHASE] + p] = 1.0 if playing and phase == p else 0.0
    rush_slot = scalars[i, RUSH_SLOT]
    for t in range(T):
        out[config[O_RUSH] + t] = 1.0 if playing and rush_slot == t else 0.0
    for v in range(10):
        out[config[O_PEEK] + v] = 0.0
    if phase == PEEK and cur == seat and deck_len > 0:  # only the peeking seat sees the card
        out[config[O_PEEK] + deck[i, deck_len - 1] - 1] = 1.0
    out[config[O_ACTIONS]] = scalars[i, ACTIONS_LEFT] if playing else 0
    out[config[O_ACTIONS] + 1] = scalars[i, FINAL]
    out[config[O_ACTIONS] + 2] = scalars[i, COMPLETED]


# ------------------------------------------------------------------ set-up
@_compiled
def _new_game(row_mask, i, seed, hands, seats, known, lacks, order, towers, deck, deck_known, pools, holder, scalars,
              bitgen, deck_cards, shuffled, config):
    """``SkyTowersGame.new_initial_state(np.random.default_rng(seed))`` into slot ``i``: the
    shuffle, the first seat, the deal one card at a time from it; its mask into ``row_mask``."""
    P, T, total = config[PLAYERS], config[SLOTS], config[TOTAL]
    rng = bitgen[i]
    seed_default_rng(rng, seed)
    permutation(rng, shuffled)
    for k in range(total):
        deck[i, k] = deck_cards[shuffled[k]]
        deck_known[i, k] = 0
    first = integers(rng, 0, P) if config[FIRST_RANDOM] else 0
    hands[i] = 0
    seats[i] = 0
    known[i] = 0
    lacks[i] = 0
    pools[i] = 0
    holder[i] = -1
    for s in range(P):
        seats[i, s, ACTION_UP] = 1
        for t in range(T):
            order[i, s, t] = t
    scalars[i] = 0
    scalars[i, ACTIONS_LEFT] = TURN_ACTIONS
    scalars[i, PHASE] = MAIN
    scalars[i, RUSH_SLOT] = -1
    scalars[i, GIVE_TARGET] = -1
    scalars[i, END_SEAT] = -1
    top = total
    for _ in range(HAND_SIZE):
        for k in range(P):
            top -= 1
            _hand_add(i, (first + k) % P, deck[i, top], 0, hands, seats, known, lacks, P)
    scalars[i, DECK_LEN] = top
    scalars[i, TURN_OF] = first
    scalars[i, CUR] = first
    _write_mask(row_mask, i, hands, seats, order, towers, pools, scalars, config)


# ------------------------------------------------------------------ the entry point
@_compiled
def advance(mode, first, last, actions, seeds, active, *arrays):
    """Slots ``first`` to ``last - 1``: with ``STEP``, play ``actions`` where ``active`` and
    start the game of ``seeds`` where that ended one (``BatchedGames.step``); with
    ``RESTART``, a new game where ``active`` (``reset``); with ``REFRESH``, the mask, seat
    to move and observation of the positions put there (``set_state``).

    ``arrays``: the 8 outputs of ``BatchedGames`` (observations flat per slot), the 14
    state arrays, the 7 tables and ``final_observer`` (``BatchedGames``': the seat whose view
    an ended game's final observation is, -1 the mover's), in the order ``batched.py`` lists
    them: separate arguments, since tuples of arrays cost milliseconds to dispatch."""
    observation, action_mask, current_player, rewards, terminated, truncated, final, final_player = arrays[0:8]
    hands, seats, known, lacks, order, towers, deck, deck_known, pools, holder = arrays[8:18]
    pile_log, pile_towers, scalars, bitgen = arrays[18:22]
    decode, deck_cards, card_sails, card_flags, bonus_sails, shuffled, config = arrays[22:29]
    final_observer = arrays[29]
    P = config[PLAYERS]
    for i in range(first, last):
        if mode != REFRESH:
            forget_last_end(i, rewards, terminated, truncated, final_player)
            if not active[i]:
                continue
        row_mask = action_mask[i]
        new_game = mode == RESTART
        if mode == STEP:
            mover = scalars[i, CUR]
            _apply(actions[i], row_mask, i, hands, seats, known, lacks, order, towers, deck, deck_known, pools,
                   holder, pile_log, pile_towers, scalars, bitgen, decode, card_sails, card_flags, bonus_sails,
                   config)
            if scalars[i, CUR] < 0:
                if scalars[i, PHASE] == OVER:
                    terminated[i] = True
                    _write_returns(rewards, i, seats, holder, scalars, bonus_sails, P)
                else:
                    truncated[i] = True
                final_player[i] = mover
                if config[KEEP_FINAL]:
                    seen_by = mover if final_observer[i] < 0 else final_observer[i]
                    _observe(final[i], i, seen_by, hands, seats, order, towers, deck, pools, holder, scalars, config)
                new_game = True
            elif scalars[i, PHASE] != MAIN:
                _write_mask(row_mask, i, hands, seats, order, towers, pools, scalars, config)
        if new_game:
            _new_game(row_mask, i, seeds[i], hands, seats, known, lacks, order, towers, deck, deck_known, pools,
                      holder, scalars, bitgen, deck_cards, shuffled, config)
        elif mode == REFRESH:
            _write_mask(row_mask, i, hands, seats, order, towers, pools, scalars, config)
        seat = scalars[i, CUR]
        current_player[i] = seat
        _observe(observation[i], i, seat, hands, seats, order, towers, deck, pools, holder, scalars, config)


@_compiled
def play_out(mt, max_plies, returns, actions, seeds, active, *arrays):
    """A random playout of the game in slot 0 (``KernelBatchedGames.play_out``): moves
    picked by ``random_legal_action`` with Python's generator ``mt``, played by
    :func:`advance` (``arrays`` are its own; chance draws from the slot's generator, loaded
    from the state), until the game ends (``returns``: its rewards) or ``max_plies`` moves
    (-1: no cap; zeros then, as at a ``max_turns`` cut)."""
    action_mask, rewards, terminated, truncated = arrays[1], arrays[3], arrays[4], arrays[5]
    returns[:] = 0.0
    plies = 0
    while max_plies < 0 or plies < max_plies:
        actions[0] = random_legal_action(action_mask[0], mt)
        advance(STEP, 0, 1, actions, seeds, active, *arrays)
        plies += 1
        if playout_ended(returns, rewards, terminated, truncated):
            return
