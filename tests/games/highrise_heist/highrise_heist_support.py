"""Helpers shared by the Highrise Heist and Golden Rush rule tests (one engine, two modes)."""


def legal(state):
    """The legal actions as a set."""
    return set(state.legal_actions().tolist())


def after(state, *actions):
    """A clone of ``state`` with ``actions`` applied (the original is left alone)."""
    state = state.clone()
    for a in actions:
        state.apply(a)
    return state
