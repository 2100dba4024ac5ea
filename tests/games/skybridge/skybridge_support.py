"""Helpers for the Skybridge tests (no tests here).

* :func:`load` builds a position text from a few cells and partial supplies;
* :func:`legal` names the legal placements (``"0T11"`` = colour 0 tall on (1,1),
  ``"2B00-01"`` = colour 2 bridge on (0,0)-(0,1));
* :func:`reference_actions` and :func:`reference_scores` re-implement the rules file
  directly from the towers and supplies, sharing no code with the engine, so that random
  positions can be checked against an independent reading of ``rules/skybridge.md``.
"""

from __future__ import annotations

import numpy as np

import sky_envs

STOREYS = {"T": 3, "S": 2, "R": 0, "B": 1}
DIRS = {"n": (-1, 0), "e": (0, 1), "s": (1, 0), "w": (0, -1)}


def game(**options):
    return sky_envs.make_game("skybridge_v0", **options)


def position(g, cells: dict[str, str], supply: dict[tuple[int, int], str] | None = None, to_move="0") -> str:
    """A position text: ``cells`` maps ``"r c"`` to pieces; unlisted foundations are empty;
    ``supply[(seat, slot)]`` like ``"T=1 B=1"`` (unlisted entries and lines are 0)."""
    lines = []
    for r in range(g.rows):
        for c in range(g.cols):
            pieces = cells.get(f"{r} {c}", "")
            lines.append(f"{r} {c}: {pieces}".rstrip())
    for seat in range(g.num_players):
        for slot in range(g.num_slots):
            counts = dict.fromkeys("TSBR", 0)
            for part in (supply or {}).get((seat, slot), "").split():
                key, _, value = part.partition("=")
                counts[key] = int(value)
            lines.append(f"supply {seat} {slot}: " + " ".join(f"{k}={v}" for k, v in counts.items()))
    lines.append(f"to_move: {to_move}")
    return "\n".join(lines)


def load(g, cells, supply=None, to_move="0"):
    return g.state_from_text(position(g, cells, supply, to_move))


def name_action(state, action: int, seat: int | None = None) -> str:
    g = state.game
    seat = state.current_player if seat is None else seat
    slot, rest = divmod(int(action), g.slot_size)
    colour = g.slot_colour[seat][slot]
    B = g.num_foundations

    def rc(i):
        return f"{i // g.cols}{i % g.cols}"

    if rest < 3 * B:
        kind, i = divmod(rest, B)
        return f"{colour}{'TSR'[kind]}{rc(i)}"
    a, b, _ = g.edges[rest - 3 * B]
    return f"{colour}B{rc(a)}-{rc(b)}"


def legal(state) -> set[str]:
    return {name_action(state, a) for a in state.legal_actions()}


def action(state, name: str) -> int:
    """The action index of a name like ``"0T11"`` for the seat to move."""
    for a in range(state.game.num_actions):
        if state.current_player >= 0 and name_action(state, a) == name:
            return a
    raise KeyError(name)


# --------------------------------------------------------------------------------------
# an independent reading of the rules, from the position text alone
# --------------------------------------------------------------------------------------
def parse(text: str):
    """Towers as lists of (colour, kind, direction) bottom to top, and supplies."""
    towers, supply = {}, {}
    for line in text.splitlines():
        head, _, rest = line.partition(":")
        words = head.split()
        if words[0] == "supply":
            supply[(int(words[1]), int(words[2]))] = {k: int(v) for k, v in (p.split("=") for p in rest.split())}
        elif words[0] != "to_move":
            towers[(int(words[0]), int(words[1]))] = [(int(t[0]), t[1], t[2:] or None) for t in rest.split()]
    return towers, supply


def spans(tower):
    """(colour, kind, base, top) of every piece; a roof occupies [base, base + 1)."""
    out, h = [], 0
    for colour, kind, _ in tower:
        s = STOREYS[kind]
        out.append((colour, kind, h, h + max(s, 1)))
        h += s
    return out


def height(tower) -> int:
    return sum(STOREYS[k] for _, k, _ in tower)


def seat_colours(players: int):
    return {2: [[0, 2], [1, 3]], 3: [[0, 3], [1, 3], [2, 3]], 4: [[0], [1], [2], [3]]}[players]


def reference_actions(text: str, players: int, rows: int, cols: int, variant: str, seat: int) -> set[str]:
    towers, supply = parse(text)
    is_open = {p: not t or t[-1][1] != "R" for p, t in towers.items()}
    hs = {p: height(t) for p, t in towers.items()}
    open_heights = [hs[p] for p in towers if is_open[p]]
    if not open_heights:
        return set()
    lowest = min(open_heights)

    def top_colour(p):
        return towers[p][-1][0] if towers[p] else None

    def adjacent(p):
        r, c = p
        return [(r + dr, c + dc) for dr, dc in DIRS.values() if (r + dr, c + dc) in towers]

    def allowed(colour, p, storeys, partner=None):
        if top_colour(p) == colour:
            return False
        if variant == "seed":
            return True
        lo, hi = hs[p], hs[p] + max(storeys, 1)
        for q in adjacent(p):
            for col, _, base, top in spans(towers[q]):
                if col == colour and base < hi and lo < top:
                    return False
        return True

    out = set()
    for slot, colour in enumerate(seat_colours(players)[seat]):
        sup = supply[(seat, slot)]
        for kind in "TS":
            if not sup[kind]:
                continue
            ok = [p for p in towers if is_open[p] and allowed(colour, p, STOREYS[kind])]
            if ok:
                m = min(hs[p] for p in ok)
                out |= {f"{colour}{kind}{p[0]}{p[1]}" for p in ok if hs[p] == m}
            elif variant == "seed":
                out |= {f"{colour}{kind}{p[0]}{p[1]}" for p in towers if is_open[p] and hs[p] == lowest}
        if sup["R"]:
            out |= {f"{colour}R{p[0]}{p[1]}" for p in towers if is_open[p] and hs[p] >= 1 and allowed(colour, p, 0)}
        if sup["B"]:
            for (r, c) in towers:
                for q in ((r, c + 1), (r + 1, c)):
                    p = (r, c)
                    if q not in towers or not (is_open[p] and is_open[q]):
                        continue
                    if hs[p] != hs[q] or hs[p] < 1 or towers[p][-1][1] == "B" or towers[q][-1][1] == "B":
                        continue
                    if variant == "seed" and (hs[p] != lowest or top_colour(p) == top_colour(q)):
                        continue
                    if allowed(colour, p, 1) and allowed(colour, q, 1):
                        out.add(f"{colour}B{r}{c}-{q[0]}{q[1]}")
    return out


def reference_scores(text: str, players: int, variant: str) -> list[int]:
    towers, _ = parse(text)
    seat_of = {c: s for s, cs in enumerate(seat_colours(players)) for c in cs}
    if players == 3:
        seat_of[3] = None
    scores = [0] * players
    hs = {p: height(t) for p, t in towers.items()}
    if variant == "seed":
        for (r, c), t in towers.items():
            if not t or seat_of[t[-1][0]] is None:
                continue
            colour, kind, d = t[-1]
            points = hs[(r, c)]
            if kind == "B":
                dr, dc = DIRS[d]
                other = towers[(r + dr, c + dc)]
                if other[-1][1] == "B" and other[-1][0] == colour and height(other) == hs[(r, c)]:
                    points *= 2
            scores[seat_of[colour]] += points
        return scores
    roofer = {p: seat_of[t[-1][0]] for p, t in towers.items() if t and t[-1][1] == "R"}
    for p, s in roofer.items():
        scores[s] += hs[p]
    for (r, c), t in towers.items():
        for colour, kind, d in t:
            if kind != "B" or d not in "es":
                continue
            s = seat_of[colour]
            dr, dc = DIRS[d]
            q = (r + dr, c + dc)
            mine_p, mine_q = roofer.get((r, c)) == s, roofer.get(q) == s
            if mine_p and mine_q:
                scores[s] += hs[(r, c)] + hs[q]
            elif mine_p:
                scores[s] += hs[q]
            elif mine_q:
                scores[s] += hs[(r, c)]
    return scores


def random_action(state, rng: np.random.Generator, bridge_bias: float = 0.0) -> int:
    """A uniformly random legal action; with probability ``bridge_bias`` a bridge if one is legal."""
    legal_actions = state.legal_actions()
    if bridge_bias and rng.random() < bridge_bias:
        g = state.game
        bridges = [a for a in legal_actions if a % g.slot_size >= 3 * g.num_foundations]
        if bridges:
            legal_actions = bridges
    return int(legal_actions[rng.integers(len(legal_actions))])


def random_states(g, rng: np.random.Generator, games: int, bridge_bias: float = 0.0):
    """Every state of ``games`` random games (clones), for property checks."""
    for _ in range(games):
        state = g.new_initial_state(rng)
        yield state.clone()
        while state.current_player >= 0:
            state.apply(random_action(state, rng, bridge_bias))
            yield state.clone()
