"""Sky Towers position text: the full state, hidden parts included, as ``key: value`` lines,
written from a state and read back into one.

Example (2 seats; every field is required except ``known`` and ``lacks``)::

    players: 2
    slots: 12
    turns: 3                      completed turns (max_turns counts these)
    turn_of: 1                    the seat whose turn it is
    phase: main                   main | rush <slot> | exchange | give <seat> | peek | ask | discard | over
    actions: 2                    actions left in the turn
    end: -                        '-' or the seat in whose turn the deck ran out
    final: no                     yes in the final round
    completed: 0                  towers the turn seat completed itself this turn
    action_cards: up down         per seat: up = may dismantle
    bonuses: big_ben=- sky=0 triple=- romance=- lucky=- real_estate_king=- perfect=-
    deck: 7 3@1 10 ...            top card first; '@' + seats that know that card (peeked)
    open: 7                       the open pool ('-' = empty)
    discards: -                   cards discarded by the 5
    hand0: 1 2 5 5 10             sorted
    hand1: 3 4 6 8 9
    row0: 3.5.2 10.4              towers left to right, each bottom.to.top
    row1: -
    pile0: 10.5.6                 completed towers, in completion order
    pile1: -
    known: 0>1=5.5                seat 0 knows seat 1 holds (at least) 5, 5
    lacks: 1>0=6.9                seat 1 knows seat 0 holds no 6 and no 9

``give <seat>`` names the exchange target; ``rush <slot>`` the slot being rushed. The seat
that discards in the ``discard`` phase is the first seat from ``turn_of`` on holding more
than 5 cards. Every card of the game's deck appears exactly once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sky_envs.core.text import parse_int, position_error, split_position
from sky_envs.games.sky_towers.deck import BIG_BEN, BONUS_NAMES, KING, LUCKY, PERFECT, ROMANCE, SKY, TRIPLE
from sky_envs.games.sky_towers.rules import (DISCARD_PHASE, EXCHANGE_PHASE, FINAL_ACTIONS, GIVE_PHASE, MAIN,
                                             MAX_SLOTS, OVER, PEEK, PHASE_NAMES, RUSH, TARGET, TURN_ACTIONS)

MAX_SEATS = 4
KEYS = ("players", "slots", "turns", "turn_of", "phase", "actions", "end", "final", "completed",
        "action_cards", "bonuses", "deck", "open", "discards",
        *(f"{kind}{s}" for kind in ("hand", "row", "pile") for s in range(MAX_SEATS)),
        "known", "lacks")
OPTIONAL = ("known", "lacks")


def _cards(values) -> str:
    return " ".join(map(str, values)) or "-"


def _towers(towers) -> str:
    return " ".join(".".join(map(str, t)) for t in towers) or "-"


def _hand(counts) -> str:
    return _cards(v for v in range(1, 11) for _ in range(counts[v]))


def state_to_text(st) -> str:
    n = st.n
    phase = PHASE_NAMES[st.phase]
    if st.phase == RUSH:
        phase += f" {st.rush_slot}"
    elif st.phase == GIVE_PHASE:
        phase += f" {st.give_target}"
    deck = []
    for v, mask in zip(reversed(st.deck), reversed(st.deck_known)):
        seats = "".join(str(t) for t in range(n) if mask >> t & 1)
        deck.append(f"{v}@{seats}" if seats else str(v))
    bonuses = " ".join(f"{name}={'-' if st.holder[b] < 0 else st.holder[b]}"
                       for b, name in enumerate(BONUS_NAMES) if st.deckinfo.in_play(b))
    lines = [
        f"players: {n}",
        f"slots: {st.T}",
        f"turns: {st.turns}",
        f"turn_of: {st.turn_of}",
        f"phase: {phase}",
        f"actions: {st.actions_left}",
        f"end: {'-' if st.end_seat < 0 else st.end_seat}",
        f"final: {'yes' if st.final else 'no'}",
        f"completed: {st.completed_turn}",
        f"action_cards: {' '.join('up' if up else 'down' for up in st.action_up)}",
        f"bonuses: {bonuses or '-'}",
        f"deck: {' '.join(deck) or '-'}",
        f"open: {_hand(st.open)}",
        f"discards: {_hand(st.discards)}",
    ]
    lines += [f"hand{s}: {_hand(st.hands[s])}" for s in range(n)]
    lines += [f"row{s}: {_towers(st.rows[s])}" for s in range(n)]
    lines += [f"pile{s}: {_towers(st.piles[s])}" for s in range(n)]
    known = [f"{t}>{o}=" + ".".join(str(v) for v in range(1, 11) for _ in range(st.known[t][o][v]))
             for t in range(n) for o in range(n) if t != o and any(st.known[t][o])]
    lacks = [f"{t}>{o}=" + ".".join(str(v) for v in range(1, 11) if st.lacks[t][o] >> v & 1)
             for t in range(n) for o in range(n) if t != o and st.lacks[t][o]]
    if known:
        lines.append(f"known: {' '.join(known)}")
    if lacks:
        lines.append(f"lacks: {' '.join(lacks)}")
    return "\n".join(lines)


# ======================================================================= parsing
class _Reader:
    def __init__(self, text: str, n: int):
        self.lines = split_position(text, KEYS)
        if self.lines.rows:
            lineno, row = self.lines.rows[0]
            raise position_error(lineno, f"unexpected line {row!r}: every line is 'key: value'")
        self.n = n

    def field(self, key: str) -> tuple[int | None, str]:
        if key not in self.lines.fields:
            if key in OPTIONAL:
                return None, "-"
            raise position_error(None, f"missing field {key!r}")
        return self.lines.fields[key]

    def int(self, key: str, low: int, high: int, reason: str = "") -> int:
        lineno, value = self.field(key)
        return parse_int(value, lineno, key, low, high, reason)

    def seat_or_none(self, key: str) -> int:
        lineno, value = self.field(key)
        return -1 if value == "-" else parse_int(value, lineno, key, 0, self.n - 1)

    def words(self, key: str) -> tuple[int | None, list[str]]:
        lineno, value = self.field(key)
        return lineno, ([] if value == "-" else value.split())

    def cards(self, key: str) -> list[int]:
        lineno, words = self.words(key)
        return [parse_int(w, lineno, f"a card in {key}", 1, 10) for w in words]

    def towers(self, key: str) -> tuple[int | None, list[list[int]]]:
        lineno, words = self.words(key)
        return lineno, [[parse_int(c, lineno, f"a card in {key}", 1, 10) for c in w.split(".")] for w in words]


def _check_tower(tower: list[int], lineno, what: str, complete: bool) -> None:
    total = sum(tower)
    if complete and total != TARGET:
        raise position_error(lineno, f"{what} {'.'.join(map(str, tower))} sums to {total}, not {TARGET}")
    if not complete and total >= TARGET:
        raise position_error(lineno, f"{what} {'.'.join(map(str, tower))} sums to {total}: an incomplete "
                                     f"tower sums to at most {TARGET - 1}")
    if 10 in tower[1:]:
        raise position_error(lineno, f"{what} {'.'.join(map(str, tower))}: a 10 can only be a tower's first card")
    if 1 in tower:
        first = tower.index(1)
        if any(v != 1 for v in tower[first:]):
            raise position_error(lineno, f"{what} {'.'.join(map(str, tower))}: only a 1 may be put on a 1")


def _hand_counts(values: list[int]) -> list[int]:
    counts = [0] * 11
    for v in values:
        counts[v] += 1
    return counts


def _knowledge(reader: _Reader, key: str) -> tuple[int | None, list[tuple[int, int, list[int]]]]:
    lineno, words = reader.words(key)
    out = []
    n = reader.n
    for w in words:
        pair, eq, values = w.partition("=")
        t, gt, o = pair.partition(">")
        if not (eq and gt and values):
            raise position_error(lineno, f"{key} entry {w!r} must look like 'T>O=v.v' (seat T about seat O)")
        t = parse_int(t, lineno, f"{key} observer seat", 0, n - 1)
        o = parse_int(o, lineno, f"{key} holder seat", 0, n - 1)
        if t == o:
            raise position_error(lineno, f"{key} entry {w!r}: a seat's knowledge of its own hand is not listed")
        out.append((t, o, [parse_int(v, lineno, f"a value in {key}", 1, 10) for v in values.split(".")]))
    return lineno, out


def read_position(game, text: str, new_state: Callable[[], Any]):
    """The position ``text`` describes, filled into the blank state ``new_state()`` gives (a
    position has too many fields for a constructor); ``ValueError`` naming the line if it is
    not valid."""
    n, T = game.num_players, game.max_towers
    r = _Reader(text, n)
    players = r.int("players", 2, MAX_SEATS)
    if players != n:
        raise position_error(r.field("players")[0], f"the position has {players} players but this env has {n}")
    slots = r.int("slots", 1, MAX_SLOTS)
    if slots != T:
        raise position_error(r.field("slots")[0], f"the position has {slots} row slots but this env has max_towers={T}")
    for key in r.lines.fields:
        if key[-1].isdigit() and int(key[-1]) >= n:
            raise position_error(r.lines.fields[key][0], f"field {key!r} names a seat, but there are only {n}")
    st = new_state()
    st.turns = r.int("turns", 0, game.max_turns, f"the game is cut at max_turns={game.max_turns}")
    st.turn_of = r.int("turn_of", 0, n - 1)
    # ------------------------------------------------------------ cards
    deck_line, deck_words = r.words("deck")
    for w in reversed(deck_words):
        value, _, seats = w.partition("@")
        st.deck.append(parse_int(value, deck_line, "a deck card", 1, 10))
        mask = 0
        for c in seats:
            mask |= 1 << parse_int(c, deck_line, f"a seat knowing deck card {w!r}", 0, n - 1)
        st.deck_known.append(mask)
    st.open = _hand_counts(r.cards("open"))
    st.discards = _hand_counts(r.cards("discards"))
    for s in range(n):
        st.hands[s] = _hand_counts(r.cards(f"hand{s}"))
        st.hand_size[s] = sum(st.hands[s])
        lineno, towers = r.towers(f"row{s}")
        if len(towers) > T:
            raise position_error(lineno, f"row{s} has {len(towers)} towers but max_towers={T}")
        for tower in towers:
            _check_tower(tower, lineno, "tower", complete=False)
        st.rows[s] = towers
        st.sums[s] = [sum(t) for t in towers]
        lineno, piles = r.towers(f"pile{s}")
        for tower in piles:
            _check_tower(tower, lineno, "completed tower", complete=True)
        st.piles[s] = piles
        st.sails[s] = sum(game.deck.sails[v] for t in piles for v in t)
        st.flags[s] = sum(game.deck.flags[v] for t in piles for v in t)
        st.ten_towers[s] = sum(1 for t in piles if 10 in t)
    counts = [0] * 11
    for v in st.deck:
        counts[v] += 1
    for s in range(n):
        for v in range(1, 11):
            counts[v] += st.hands[s][v]
        for tower in st.rows[s] + st.piles[s]:
            for v in tower:
                counts[v] += 1
    for v in range(1, 11):
        counts[v] += st.open[v] + st.discards[v]
        if counts[v] != game.deck.copies[v]:
            raise position_error(None, f"the position holds {counts[v]} card(s) of value {v} but the deck has "
                                       f"{game.deck.copies[v]}: every card must appear exactly once")
    # ------------------------------------------------------------ action cards, bonuses
    lineno, words = r.words("action_cards")
    if len(words) != n or any(w not in ("up", "down") for w in words):
        raise position_error(lineno, f"action_cards must list 'up' or 'down' for each of the {n} seats")
    st.action_up = [w == "up" for w in words]
    _parse_bonuses(r, st)
    # ------------------------------------------------------------ turn and phase
    _parse_phase(r, st)
    # ------------------------------------------------------------ knowledge
    lineno, entries = _knowledge(r, "known")
    for t, o, values in entries:
        for v in values:
            st.known[t][o][v] += 1
            if st.known[t][o][v] > st.hands[o][v]:
                raise position_error(lineno, f"known: seat {t} knows of {st.known[t][o][v]} {v}(s) in hand{o}, "
                                             f"which holds {st.hands[o][v]}")
    lineno, entries = _knowledge(r, "lacks")
    for t, o, values in entries:
        for v in values:
            if st.hands[o][v]:
                raise position_error(lineno, f"lacks: seat {t} knows seat {o} holds no {v}, but hand{o} has one")
            st.lacks[t][o] |= 1 << v
    _set_current_player(st, r)
    return st


def _parse_bonuses(r: _Reader, st) -> None:
    lineno, words = r.words("bonuses")
    game = st.game
    expected = [name for b, name in enumerate(BONUS_NAMES) if game.deck.in_play(b)]
    got = {}
    for w in words:
        name, eq, holder = w.partition("=")
        if not eq or name not in BONUS_NAMES:
            raise position_error(lineno, f"bonus entry {w!r} must be 'name=seat' or 'name=-' with a name in {expected}")
        got[name] = -1 if holder == "-" else parse_int(holder, lineno, f"holder of {name}", 0, st.n - 1)
    if sorted(got) != sorted(expected):
        raise position_error(lineno, f"bonuses must list exactly the bonuses in play {expected}, got {sorted(got)}")
    for b, name in enumerate(BONUS_NAMES):
        seat = got.get(name, -1)
        st.holder[b] = seat
        if seat < 0:
            continue
        pile = st.piles[seat]
        ok = {
            BIG_BEN: st.ten_towers[seat] >= 3,
            SKY: any(all(v <= 3 for v in t) for t in pile),
            TRIPLE: any(sum(t.count(v) // 3 for v in set(t)) >= 2 for t in pile),
            ROMANCE: any(t.count(4) >= 4 or t.count(5) >= 4 for t in pile),
            LUCKY: any(t == [7, 7, 7] for t in pile),
            KING: len(pile) >= 2,
            PERFECT: len(pile) >= 1,
        }[b]
        if not ok:
            raise position_error(lineno, f"player_{seat} holds {name} but its completed towers do not earn it")


def _parse_phase(r: _Reader, st) -> None:
    n = st.n
    lineno, words = r.words("phase")
    if not words or words[0] not in PHASE_NAMES:
        raise position_error(lineno, f"phase must be one of {list(PHASE_NAMES)}, got {' '.join(words)!r}")
    st.phase = PHASE_NAMES.index(words[0])
    takes_arg = st.phase in (RUSH, GIVE_PHASE)
    if len(words) != 1 + takes_arg:
        raise position_error(lineno, f"phase {words[0]!r} takes {'one number' if takes_arg else 'no argument'}")
    s = st.turn_of
    if st.phase == RUSH:
        st.rush_slot = parse_int(words[1], lineno, "the rush slot", 0, len(st.rows[s]) - 1) if st.rows[s] else -1
        if st.rush_slot < 0 or st.rows[s][st.rush_slot][-1] != 4:
            raise position_error(lineno, "a rush needs the tower in the rush slot of the turn seat to show a 4 on top")
    elif st.phase == GIVE_PHASE:
        st.give_target = parse_int(words[1], lineno, "the exchange target", 0, n - 1)
        if st.give_target == s or not st.hand_size[s]:
            raise position_error(lineno, "the give phase needs another seat as target and a card in the "
                                         "turn seat's hand")
    elif st.phase == PEEK and not st.deck:
        raise position_error(lineno, "the peek phase needs a card in the deck")
    elif st.phase == DISCARD_PHASE and max(st.hand_size) <= 5:
        raise position_error(lineno, "the discard phase needs a seat holding more than 5 cards")
    elif st.phase == EXCHANGE_PHASE and not any(st.hand_size[(s + o) % n] >= 2 for o in range(1, n)):
        raise position_error(lineno, "the exchange phase needs another seat holding at least 2 cards")
    st.end_seat = r.seat_or_none("end")
    lineno, final = r.field("final")
    if final not in ("yes", "no"):
        raise position_error(lineno, f"final must be 'yes' or 'no', got {final!r}")
    st.final = final == "yes"
    if (st.end_seat >= 0) != (not st.deck):
        raise position_error(r.field("end")[0], "'end' names the seat in whose turn the deck ran out: it is '-' "
                                                "exactly while the deck still has cards")
    if st.final and st.end_seat < 0:
        raise position_error(lineno, "the final round needs 'end' to name the seat that emptied the deck")
    if not st.final and st.end_seat >= 0 and st.end_seat != s and st.phase != OVER:
        raise position_error(lineno, "the deck ran out in another seat's turn, so this must be the final round")
    st.actions_left = r.int("actions", 0, FINAL_ACTIONS if st.final else TURN_ACTIONS)
    pile = len(st.piles[s])
    st.completed_turn = r.int("completed", 0, pile, f"the towers player_{s} completed this turn are among the "
                                                    f"{pile} in its score pile")


def _set_current_player(st, r: _Reader) -> None:
    if st.phase == OVER:
        st.current_player = -1
    elif st.turns >= st.game.max_turns:
        st.current_player = -1  # truncated
    elif st.phase == DISCARD_PHASE:
        st.current_player = st.next_discarder()
    else:
        st.current_player = st.turn_of
        if st.phase == MAIN and (st.actions_left == 0 or not st.main_actions(st.turn_of)):
            raise position_error(r.field("phase")[0], f"player_{st.turn_of} has no legal main action "
                                                      f"({st.actions_left} action(s) left): the turn would be over")
