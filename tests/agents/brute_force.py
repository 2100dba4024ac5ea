"""Exact values by brute force, the reference the search and solver tests hold the agents to:
plain negamax over every line (two seats, zero sum), no table, no cuts."""

from __future__ import annotations

import math


def brute_force(state, seat, plies=math.inf, root=None, optimistic=False):
    """Plain negamax over every line, no table, no cuts: ``state``'s value for ``seat``.
    With a horizon ``plies`` deep, a position there counts as the worst outcome for ``root``
    (the best if ``optimistic``), as the solver's bounds do."""
    if state.current_player < 0:
        return float(state.returns()[seat]) if state.is_terminal() else 0.0
    if plies <= 0:
        worst = 1.0 if optimistic else -1.0
        return worst if seat == root else -worst
    mover = state.current_player
    best = -math.inf
    for action in state.legal_actions().tolist():
        child = state.clone()
        child.apply_unchecked(action)
        best = max(best, brute_force(child, mover, plies - 1, root, optimistic))
    return best if mover == seat else -best


def brute_force_moves(state, plies=math.inf):
    """Per legal action its (lower, upper) value bounds for the seat to move, exact without a horizon."""
    seat, out = state.current_player, {}
    for action in state.legal_actions().tolist():
        child = state.clone()
        child.apply_unchecked(action)
        bounds = [brute_force(child, seat, plies - 1, seat, optimistic) for optimistic in (False, True)]
        out[action] = tuple(bounds)
    return out


def tree_size(state, cap):
    """The positions of ``state``'s whole game tree, counted up to ``cap`` (then ``cap``)."""
    count, stack = 0, [state]
    while stack and count < cap:
        node = stack.pop()
        count += 1
        for action in node.legal_actions().tolist():
            child = node.clone()
            child.apply_unchecked(action)
            if child.current_player >= 0:
                stack.append(child)
    return count


def exact_value(state, seat, limit):
    """``state``'s exact value for ``seat``, or None where its game tree holds more than
    ``limit`` positions in play."""
    return brute_force(state, seat) if tree_size(state, limit + 1) <= limit else None


def exact_values(state, limit=800):
    """Every position in play of ``state``'s game tree by its observation: the exact value for
    the seat to move, or None where the tree holds more than ``limit`` of them."""
    if tree_size(state, limit + 1) > limit:
        return None
    table = {}

    def solve(s):
        if s.current_player < 0:
            return s.returns()
        best = None
        for action in s.legal_actions().tolist():
            child = s.clone()
            child.apply_unchecked(action)
            returns = solve(child)
            if best is None or returns[s.current_player] > best[s.current_player]:
                best = returns
        key = s.observation(s.current_player).tobytes()
        assert table.setdefault(key, best[s.current_player]) == best[s.current_player]
        return best

    solve(state)
    return table
