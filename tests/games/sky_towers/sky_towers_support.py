"""Helpers for the Sky Towers tests: hand-made positions and the action layout of the rules file.

The action indices are written from the formulas of rules/sky_towers.md (T = 12 unless
given), independently of the package's layout module, so the tests pin the layout too.
"""

from __future__ import annotations

import numpy as np

from sky_envs.games.sky_towers import SkyTowersGame

BONUSES = ("big_ben", "sky", "triple", "romance", "lucky", "real_estate_king", "perfect")
DEFAULT_COPIES = (0, 8, 10, 10, 9, 8, 8, 9, 3, 3, 14)


def W(T=12):
    return T + 2


def LEFT(T=12):
    return T


def RIGHT(T=12):
    return T + 1


def DRAW():
    return 0


def TAKE(v):
    return v


def DISMANTLE(t):
    return 11 + t


def B(v, p, T=12):
    """Build a v on your own row at p (p < T a slot, T left end, T + 1 right end)."""
    return 11 + T + (v - 1) * (T + 2) + p


def C(v, o, p, T=12):
    """Build an 8 or 9 on the row of seat (i + o) % n."""
    return 31 + 11 * T + ((v - 8) * 3 + (o - 1)) * (T + 2) + p


def STOP(T=12):
    return 43 + 17 * T


def EXCHANGE(o, T=12):
    return STOP(T) + o


def GIVE(v, T=12):
    return STOP(T) + 3 + v


def KEEP(T=12):
    return STOP(T) + 14


def BOTTOM(T=12):
    return STOP(T) + 15


def ASK(o, v, T=12):
    return STOP(T) + 15 + (o - 1) * 10 + v


def DISCARD(v, T=12):
    return STOP(T) + 45 + v


def _tokens(text: str) -> list[int]:
    out = []
    for word in text.replace(".", " ").split():
        out.append(int(word.partition("@")[0]))
    return out


def position(players=2, slots=12, turns=0, turn_of=0, phase="main", actions=2, end="-", final="no",
             completed=0, action_cards=None, bonuses=None, deck="", open="", discards="", hands=None,
             rows=None, piles=None, known="", lacks="", rest="deck", copies=DEFAULT_COPIES) -> str:
    """A full position text; the cards not placed anywhere go to the deck's bottom (ascending)
    with ``rest="deck"``, or to the discards with ``rest="discards"``."""
    hands, rows, piles = hands or {}, rows or {}, piles or {}
    used = [0] * 11
    for text in [deck, open, discards, *hands.values(), *rows.values(), *piles.values()]:
        for v in _tokens(text):
            used[v] += 1
    left = [v for v in range(1, 11) for _ in range(copies[v] - used[v])]
    assert all(copies[v] >= used[v] for v in range(1, 11)), "the position uses more cards than the deck has"
    if rest == "deck":
        deck = " ".join([deck, *map(str, left)]).strip()
    else:
        discards = " ".join([discards, *map(str, left)]).strip()
    holders = {name: "-" for name in BONUSES}
    holders.update({k: str(v) for k, v in (bonuses or {}).items()})
    cards = action_cards or " ".join(["up"] * players)
    sort = lambda text: " ".join(sorted(text.split(), key=int)) or "-"  # noqa: E731
    lines = [
        f"players: {players}", f"slots: {slots}", f"turns: {turns}", f"turn_of: {turn_of}",
        f"phase: {phase}", f"actions: {actions}", f"end: {end}", f"final: {final}",
        f"completed: {completed}", f"action_cards: {cards}",
        "bonuses: " + " ".join(f"{k}={v}" for k, v in holders.items()),
        f"deck: {deck or '-'}", f"open: {sort(open)}", f"discards: {sort(discards)}",
    ]
    lines += [f"hand{s}: {sort(hands.get(s, ''))}" for s in range(players)]
    lines += [f"row{s}: {rows.get(s, '') or '-'}" for s in range(players)]
    lines += [f"pile{s}: {piles.get(s, '') or '-'}" for s in range(players)]
    if known:
        lines.append(f"known: {known}")
    if lacks:
        lines.append(f"lacks: {lacks}")
    return "\n".join(lines)


def load(text: str, seed: int = 0, **options):
    """The state of ``text`` in a game with the text's seat count (and ``options``)."""
    players = int(text.split("players:")[1].split()[0])
    game = SkyTowersGame(players=players, **options)
    return game.state_from_text(text, rng=np.random.default_rng(seed))


def fields(state) -> dict[str, str]:
    """The state's position text as a dict ``key -> value``."""
    return dict(line.split(": ", 1) for line in state.to_text().splitlines())


def legal(state) -> set[int]:
    return {int(a) for a in state.legal_actions()}


def play(state, *actions) -> None:
    for a in actions:
        state.apply(a)


def card_census(state) -> list[int]:
    """How many cards of each value are in the deck, hands, rows, piles, open pool, discards."""
    counts = [0] * 11
    zones = [state.deck] + [t for row in state.rows for t in row] + [t for pile in state.piles for t in pile]
    for zone in zones:
        for v in zone:
            counts[v] += 1
    for v in range(1, 11):
        counts[v] += sum(h[v] for h in state.hands) + state.open[v] + state.discards[v]
    return counts


def random_play(state, rng, max_steps=10_000, each=None):
    """Play uniformly random legal actions; ``each(state)`` is called before every step."""
    for _ in range(max_steps):
        if each is not None:
            each(state)
        if state.current_player < 0:
            return state
        acts = state.legal_actions()
        state.apply(int(acts[rng.integers(len(acts))]))
    raise AssertionError(f"the game did not end within {max_steps} decisions")
