"""Position texts of both modes (``rules/highrise_heist.md``), written and read back exactly.

One line per stand, stand 0 first, holding that stand's blocks from bottom to top (``b``/``r``
in Highrise Heist, the colour digits ``0``-``3`` in Golden Rush) or ``-`` when it is empty;
then ``to_move: <seat>``, ``phase: transfer|place``, ``turn: <turns played>``,
``closed_this_turn: 0|1`` and, in Golden Rush, ``queue: <eligible seats in order>``.

Reading checks everything a real game can reach: every error names the line. The position
read is built by ``new_state``, the state class the game hands over (this module does not
import the states).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sky_envs.core.text import parse_int, position_error, split_position
from sky_envs.games.highrise_heist.rules import CENTRE, HEIGHT, PHASES, PLACE, TRANSFER

EMPTY = "-"


def _stand_token(column: list[int], letters: str) -> str:
    return "".join(letters[c] for c in column) if column else EMPTY


def state_to_text(state) -> str:
    letters = state.game.letters
    lines = [_stand_token(column, letters) for column in state.stands]
    lines.append(f"to_move: {state.to_move}")
    lines.append(f"phase: {PHASES[state.phase]}")
    lines.append(f"turn: {state.turn}")
    lines.append(f"closed_this_turn: {int(state.closed_this_turn)}")
    if state.game.num_players == 4:
        lines.append(("queue: " + " ".join(str(seat) for seat in state.queue)).rstrip())
    return "\n".join(lines)


def _parse_stands(game, rows: list[tuple[int, str]]) -> list[list[int]]:
    S, letters = game.num_stands, game.letters
    if len(rows) != S:
        where = rows[S][0] if len(rows) > S else (rows[-1][0] if rows else None)
        raise position_error(where, f"the position has {len(rows)} stand lines but {game.name} has {S} "
                                    f"stands: one line per stand, stand 0 first")
    expected = ", ".join(f"'{letter}' (colour {i})" for i, letter in enumerate(letters))
    stands = []
    for stand, (lineno, line) in enumerate(rows):
        if line == EMPTY:
            stands.append([])
            continue
        column = []
        for position, char in enumerate(line, start=1):
            colour = letters.find(char)
            if colour < 0:
                raise position_error(lineno, f"stand {stand}: unknown block {char!r} at position {position} of "
                                             f"{line!r}: expected {expected}, or the line '{EMPTY}' for an empty stand")
            column.append(colour)
        if len(column) > HEIGHT:
            raise position_error(lineno, f"stand {stand} holds {len(column)} blocks: a stand holds at most {HEIGHT}")
        stands.append(column)
    return stands


def _field(fields, key: str, default: str | None = None) -> tuple[int | None, str]:
    if key in fields:
        return fields[key]
    if default is None:
        raise position_error(None, f"the position has no '{key}:' line (expected after the stand lines)")
    return None, default


def read_position(game, text: str, new_state: Callable[..., Any]):
    """The position ``text`` describes, built by ``new_state(stands, turn, phase,
    closed_this_turn)`` (Golden Rush: and ``queue``); ``ValueError`` naming the line if it
    is not valid."""
    keys = ("to_move", "phase", "turn", "closed_this_turn") + (("queue",) if game.num_players == 4 else ())
    parsed = split_position(text, keys)
    stands = _parse_stands(game, parsed.rows)
    fields = parsed.fields
    P = game.num_players

    lineno, value = _field(fields, "turn")
    turn = parse_int(value, lineno, "turn", 0, game.max_turns, f"the game is cut at max_turns={game.max_turns}")
    lineno, value = _field(fields, "to_move")
    to_move = parse_int(value, lineno, "to_move", 0, P - 1)
    if to_move != turn % P:
        raise position_error(lineno, f"to_move: {to_move} contradicts turn: {turn}: seats take turns in order "
                                     f"from player_0, so turn {turn} is player_{turn % P}'s")
    phase_line, value = _field(fields, "phase")
    if value not in PHASES:
        raise position_error(phase_line, f"phase must be 'transfer' or 'place', got {value!r}")
    phase = PHASES.index(value)
    flag_line, value = _field(fields, "closed_this_turn", "0")
    closed_this_turn = bool(parse_int(value, flag_line, "closed_this_turn", 0, 1))
    if closed_this_turn and phase == TRANSFER:
        raise position_error(flag_line, "closed_this_turn: 1 needs phase: place: only this turn's transfer can "
                                        "have closed a stand before a decision is due")
    if closed_this_turn and not any(len(column) == HEIGHT for column in stands):
        raise position_error(flag_line, "closed_this_turn: 1 but no stand is closed (11 blocks)")
    row_lines = [lineno for lineno, _ in parsed.rows]
    if P == 2:
        return _heist_state(game, stands, turn, phase, closed_this_turn, phase_line, flag_line, new_state)
    return _rush_state(game, stands, turn, phase, closed_this_turn, row_lines, fields, new_state)


def _heist_state(game, stands, turn, phase, closed_this_turn, phase_line, flag_line, new_state):
    if turn == 0 and phase != PLACE:
        raise position_error(phase_line, "turn 0 is player_0's opening placement of one block, which has no "
                                         "transfer phase: phase must be place")
    if closed_this_turn:
        mover = turn % 2
        if turn == 0:
            raise position_error(flag_line, "closed_this_turn: 1 is impossible at turn 0, which has no transfer")
        if not any(len(column) == HEIGHT and column[-1] == mover for column in stands):
            raise position_error(flag_line, f"closed_this_turn: 1 but no closed stand is topped by the mover's "
                                            f"colour {game.letters[mover]!r}: only a transfer of the mover's "
                                            f"own colour can close a stand")
    return new_state(stands, turn, phase, closed_this_turn)


def _rush_state(game, stands, turn, phase, closed_this_turn, row_lines, fields, new_state):
    seats = game.num_players
    for seat in range(seats):
        near, far = 2 * seat + 1, 2 * seat + 2
        if len(stands[far]) == HEIGHT and len(stands[near]) < HEIGHT:
            raise position_error(row_lines[far], f"stand {far} (player_{seat}'s far stand) holds 11 blocks while "
                                                 f"its near stand {near} is open: a far stand holds 10 until the "
                                                 f"near one is closed")
    eligible = {seat for seat in range(seats)
                if len(stands[2 * seat + 1]) == HEIGHT and len(stands[2 * seat + 2]) == HEIGHT}
    lineno, value = _field(fields, "queue")
    queue = [parse_int(token, lineno, "a queue entry", 0, seats - 1) for token in value.split()]
    if len(set(queue)) != len(queue) or set(queue) != eligible:
        raise position_error(lineno, f"queue must list each eligible seat (both arm stands closed) once, in the "
                                     f"order they became eligible; the eligible seats are {sorted(eligible)}, "
                                     f"got {value!r}")
    if len(stands[CENTRE]) == HEIGHT and not queue:
        raise position_error(row_lines[CENTRE], "the centre (stand 0) holds 11 blocks but no seat is eligible: "
                                                "it holds 10 until a seat has closed both arm stands")
    return new_state(stands, turn, phase, closed_this_turn, queue)
