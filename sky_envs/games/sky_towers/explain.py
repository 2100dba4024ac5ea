"""Why a Sky Towers action is illegal: the rule it breaks, in words (used in
``IllegalActionError``)."""

from __future__ import annotations

from sky_envs.games.sky_towers.layout import (ASK, BOTTOM, BUILD, CHAOS, DISCARD, DISMANTLE, DRAW,
                                              EXCHANGE, GIVE, KEEP, STOP, TAKE)
from sky_envs.games.sky_towers.rules import (ASK_PHASE, DISCARD_PHASE, EXCHANGE_PHASE, GIVE_PHASE,
                                             MAIN, PEEK, PHASE_HELP, RUSH, TARGET)

# which action kinds belong to which phase
PHASE_KINDS = {
    MAIN: {DRAW, TAKE, DISMANTLE, BUILD, CHAOS, STOP},
    RUSH: {BUILD, STOP},
    EXCHANGE_PHASE: {EXCHANGE, STOP},
    GIVE_PHASE: {GIVE},
    PEEK: {KEEP, BOTTOM},
    ASK_PHASE: {ASK, DRAW},
    DISCARD_PHASE: {DISCARD},
}


def build_reason(state, s: int, v: int, r: int, p: int) -> str | None:
    """Why seat ``s`` may not build a v on seat ``r``'s row at ``p`` (None if it may)."""
    T = state.T
    row, sums = state.rows[r], state.sums[r]
    if not state.hands[s][v]:
        return f"player_{s} holds no {v}"
    blocked = state.blocked_values(s)
    if blocked >> v & 1:
        n = state.n
        left, right = state.rows[(s - 1) % n], state.rows[(s + 1) % n]
        who = []
        if left and left[-1][-1] == v:
            who.append(f"the rightmost tower of player_{(s - 1) % n}")
        if right and right[0][-1] == v:
            who.append(f"the leftmost tower of player_{(s + 1) % n}")
        return f"a {v} is blocked: {' and '.join(who)} shows a {v} on top"
    if p < T:
        if p >= len(row):
            return f"player_{r}'s row has no tower in slot {p} (it has {len(row)} towers)"
        if v == 10:
            return "a 10 may only be the first card of a new tower"
        if row[p][-1] == 1 and v != 1:
            return f"the tower in slot {p} has a 1 on top: only a 1 may be put on a 1"
        if sums[p] + v > TARGET:
            return f"the tower in slot {p} sums to {sums[p]}; adding a {v} would exceed {TARGET}"
        return None
    if len(row) >= T:
        return f"player_{r}'s row already has {T} towers (max_towers={T}): no new tower fits"
    return None


def illegal_reason(state, action: int) -> str:
    L = state.layout
    if state.current_player < 0:
        return "the game is over"
    kind, v, o, p = L.decode[action]
    ph, s, n = state.phase, state.turn_of, state.n
    if kind not in PHASE_KINDS[ph]:
        return f"out of phase: player_{state.current_player} must decide {PHASE_HELP[ph]}"
    if kind in (CHAOS, EXCHANGE, ASK) and o >= n:
        return f"there is no seat at offset +{o} with {n} players"
    if ph == MAIN:
        if kind == STOP:
            return "stop ends a final turn early; a normal turn must take 2 actions while it can"
        if kind == DRAW:
            return "the deck is empty"
        if kind == TAKE:
            return f"the open pool holds no {v}"
        if kind == DISMANTLE:
            if not state.action_up[s]:
                return f"player_{s}'s action card is face down: no dismantling until one of its towers is completed"
            return f"player_{s} has no tower in slot {p}"
        r = s if kind == BUILD else (s + o) % n
        return build_reason(state, s, v, r, p) or "it is not legal here"
    if ph == RUSH:
        slot = state.rush_slot
        if (v, p) != (4, slot):
            return f"during a rush only another 4 on the same tower (slot {slot}) or stop are legal"
        return build_reason(state, s, 4, s, slot) or "no further 4 fits"
    if ph == EXCHANGE_PHASE:
        target = (s + o) % n
        return f"player_{target} holds {state.hand_size[target]} card(s); the exchange needs a seat with at least 2"
    if ph == GIVE_PHASE:
        return f"player_{s} holds no {v} to give"
    if ph == ASK_PHASE:
        return "the deck is empty: the 6 can only ask"
    if ph == DISCARD_PHASE:
        return f"player_{state.current_player} holds no {v} to discard"
    return "it is not one of the legal actions in this position"
