"""Skybridge position text (the notation of ``rules/skybridge.md``): written from a state,
read back into a state (built by ``new_state``, the state class the game hands over: this
module does not import the state).

::

    0 0: 0T 1S
    0 1: 2T 3Be
    0 2: 1T 3Bw
    ...
    supply 0 0: T=3 S=4 B=1 R=2
    supply 0 1: T=3 S=4 B=1 R=2
    supply 1 0: T=4 S=3 B=1 R=2
    supply 1 1: T=4 S=4 B=0 R=2
    to_move: 0

One line per foundation ``r c:`` with its pieces bottom to top (colour digit + ``T``, ``S``,
``R``, or ``B`` + the partner's direction), one ``supply <seat> <slot>:`` line per seat and
colour slot in use, and ``to_move: <seat>`` (``to_move: -`` once the game is over).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sky_envs.core.text import parse_int, position_error
from sky_envs.games.skybridge.pieces import (
    BRIDGE, DIR_LETTERS, NUM_COLOURS, OPPOSITE, ROOF, SHORT, SUP_B, SUP_OF_KIND, SUPPLY_LETTERS,
    SUPPLY_NAMES, TALL, piece_storeys, token,
)

_TOKEN = re.compile(r"^([0-9])(T|S|R|B([nesw]))$")
_KINDS = {"T": TALL, "S": SHORT, "R": ROOF}


def state_to_text(state) -> str:
    game = state.game
    lines = []
    for i, stack in enumerate(state.stacks):
        head = f"{i // game.cols} {i % game.cols}:"
        lines.append(" ".join([head, *map(token, stack)]))
    for seat, slots in enumerate(state.supply):
        for slot, sup in enumerate(slots):
            counts = " ".join(f"{SUPPLY_LETTERS[k]}={sup[k]}" for k in range(4))
            lines.append(f"supply {seat} {slot}: {counts}")
    lines.append(f"to_move: {state.current_player if state.current_player >= 0 else '-'}")
    return "\n".join(lines)


def _parse_stack(game, lineno: int, r: int, c: int, value: str) -> list[int]:
    stack = []
    for tok in value.split():
        m = _TOKEN.match(tok)
        if m is None:
            raise position_error(lineno, f"bad piece {tok!r} on ({r},{c}): expected a colour digit 0..3 and "
                                 "T (tall), S (short), R (roof) or B plus the partner's direction n/e/s/w, e.g. '2Be'")
        colour = int(m[1])
        if colour >= NUM_COLOURS:
            raise position_error(lineno, f"piece {tok!r} on ({r},{c}): colours are 0..3")
        kind = BRIDGE + DIR_LETTERS.index(m[3]) if m[3] else _KINDS[m[2]]
        if stack and (stack[-1] & 7) == ROOF:
            raise position_error(lineno, f"piece {tok!r} on ({r},{c}) lies on a roof: nothing goes on a roof")
        if kind >= BRIDGE and stack and (stack[-1] & 7) >= BRIDGE:
            raise position_error(lineno, f"bridge end {tok!r} on ({r},{c}) lies directly on a bridge: "
                                 "no bridge directly on a bridge")
        if kind >= BRIDGE and not stack:
            raise position_error(lineno, f"bridge end {tok!r} on ({r},{c}) lies on the bare board: "
                                 "a bridge needs towers of height >= 1")
        if kind >= BRIDGE and game.neighbour_at[r * game.cols + c][kind - BRIDGE] < 0:
            raise position_error(lineno, f"bridge end {tok!r} on ({r},{c}) points off the board")
        stack.append(colour * 8 + kind)
    if stack and (stack[0] & 7) == ROOF:
        raise position_error(lineno, f"roof {token(stack[0])!r} on ({r},{c}) lies on the bare board: "
                             "a roof goes on a tower of height >= 1")
    return stack


def _bases(stack: list[int]) -> list[int]:
    bases, h = [], 0
    for piece in stack:
        bases.append(h)
        h += piece_storeys(piece & 7)
    return bases


def _check_bridges(game, stacks: list[list[int]], linenos: list[int]) -> None:
    """Every bridge end needs its partner end: same colour, opposite direction, same base."""
    where = [f"({i // game.cols},{i % game.cols})" for i in range(game.num_foundations)]
    bases = [_bases(s) for s in stacks]
    for i, stack in enumerate(stacks):
        for piece, base in zip(stack, bases[i]):
            kind = piece & 7
            if kind < BRIDGE:
                continue
            d = kind - BRIDGE
            j = game.neighbour_at[i][d]
            want = (piece >> 3) * 8 + BRIDGE + OPPOSITE[d]
            if base in bases[j] and stacks[j][bases[j].index(base)] == want:
                continue
            name = token(piece)
            if want in stacks[j]:
                other = bases[j][stacks[j].index(want)]
                raise position_error(linenos[i], f"bridge end {name} on {where[i]} lies at height {base} but its "
                                     f"partner {token(want)} on {where[j]} lies at height {other}: the heights do "
                                     "not match (a bridge lies on two towers of equal height)")
            raise position_error(linenos[i], f"bridge end {name} on {where[i]} does not pair up: {where[j]} has no "
                                 f"{token(want)} at height {base}")


def _parse_supply(lineno: int, value: str, start: list[int]) -> list[int]:
    """The counts of a supply line; each is at most the slot's starting count in ``start``."""
    found: dict[str, int] = {}
    for part in value.split():
        letter, eq, number = part.partition("=")
        if not eq or letter not in SUPPLY_LETTERS or letter in found:
            raise position_error(lineno, f"bad supply entry {part!r}: expected 'T=<n> S=<n> B=<n> R=<n>'")
        most = start[SUPPLY_LETTERS.index(letter)]
        found[letter] = parse_int(number, lineno, f"supply {letter}", 0, most,
                                  f"that slot starts with only {most} and never gains pieces")
    if len(found) != 4:
        raise position_error(lineno, f"a supply line needs T=, S=, B= and R=, got {value!r}")
    return [found[k] for k in SUPPLY_LETTERS]


def read_position(game, text: str, new_state: Callable[..., Any]):
    """The position ``text`` describes, built by ``new_state(stacks, supply, to_move)``;
    ``ValueError`` naming the line if it is not valid (or if it says the game is over while a
    seat can still place)."""
    if not isinstance(text, str):
        raise ValueError(f"a position text must be a str, got {type(text).__name__}")
    B, P = game.num_foundations, game.num_players
    stacks: list[list[int] | None] = [None] * B
    linenos = [0] * B
    supply = [[None] * game.num_slots for _ in range(P)]
    to_move = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        key, colon, value = line.partition(":")
        words = key.split()
        if not colon:
            raise position_error(lineno, f"{line!r} is not a position line: expected 'r c: pieces', "
                                 "'supply <seat> <slot>: ...' or 'to_move: <seat>'")
        if to_move is not None:
            raise position_error(lineno, "'to_move' must be the last line")
        if len(words) == 2 and all(w.isdigit() for w in words):
            r = parse_int(words[0], lineno, "row", 0, game.rows - 1)
            c = parse_int(words[1], lineno, "column", 0, game.cols - 1)
            i = r * game.cols + c
            if stacks[i] is not None:
                raise position_error(lineno, f"foundation ({r},{c}) appears twice")
            stacks[i] = _parse_stack(game, lineno, r, c, value)
            linenos[i] = lineno
        elif len(words) == 3 and words[0] == "supply":
            seat = parse_int(words[1], lineno, "supply seat", 0, P - 1)
            slot = parse_int(words[2], lineno, "supply slot", 0, game.num_slots - 1)
            if supply[seat][slot] is not None:
                raise position_error(lineno, f"supply {seat} {slot} appears twice")
            supply[seat][slot] = _parse_supply(lineno, value, game.initial_supply[seat][slot])
        elif key.strip() == "to_move":
            value = value.strip()
            to_move = -1 if value == "-" else parse_int(value, lineno, "to_move", 0, P - 1)
        else:
            raise position_error(lineno, f"unknown line {line!r}: expected 'r c: pieces' (0 <= r < {game.rows}, "
                                 f"0 <= c < {game.cols}), 'supply <seat> <slot>: ...' or 'to_move: <seat>'")
    missing = [f"({i // game.cols},{i % game.cols})" for i in range(B) if stacks[i] is None]
    if missing:
        raise position_error(None, f"no line for foundation(s) {', '.join(missing)}: the board is "
                             f"{game.rows}x{game.cols} and every foundation needs a line 'r c:' (empty: nothing after the colon)")
    for seat in range(P):
        for slot in range(game.num_slots):
            if supply[seat][slot] is None:
                raise position_error(None, f"missing line 'supply {seat} {slot}: T=<n> S=<n> B=<n> R=<n>'")
    if to_move is None:
        raise position_error(None, "missing line 'to_move: <seat>' (or 'to_move: -' once the game is over)")
    _check_bridges(game, stacks, linenos)
    _check_counts(game, stacks, supply)
    state = new_state(stacks, supply, max(to_move, 0))
    if to_move < 0 and state.current_player >= 0:
        raise position_error(None, f"'to_move: -' says the game is over, but player_{state.current_player} can "
                             "still place")
    return state


def _check_counts(game, stacks, supply) -> None:
    """Pieces on the board plus supplies never exceed what the game puts in play."""
    used = [[0, 0, 0, 0] for _ in range(NUM_COLOURS)]
    for stack in stacks:
        for piece in stack:
            colour, kind = piece >> 3, piece & 7
            if kind >= BRIDGE:
                if kind - BRIDGE in (1, 2):  # count each bridge once
                    used[colour][SUP_B] += 1
            else:
                used[colour][SUP_OF_KIND[kind]] += 1
    for seat, slots in enumerate(supply):
        for slot, sup in enumerate(slots):
            colour = game.slot_colour[seat][slot]
            for k in range(4):
                used[colour][k] += sup[k]
    for colour in range(NUM_COLOURS):
        for k in range(4):
            total = game.colour_total[colour][k]
            if used[colour][k] > total:
                raise position_error(None, f"colour {colour} has {used[colour][k]} {SUPPLY_NAMES[k]} on the board "
                                     f"and in supplies, but this game has only {total} of them")

