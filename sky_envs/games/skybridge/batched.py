"""Skybridge's compiled batched engine: many games over arrays, one numba call a step.

The state of ``N`` games is a structure of arrays (:class:`Slots`), leading dimension the
slot:

* ``height[n, i]`` and ``top[n, i]``: tower ``i``'s height in storeys and its top piece's
  code ``colour * 8 + kind`` (``pieces.py``; -1 on a bare foundation);
* ``counts[n, i, c]`` and ``counts[n, i, ENDS]``: the storeys of colour ``c`` and the
  bridge ends in tower ``i``, and ``bridges[n, i, 4 c + d]`` its bridge ends of colour
  ``c`` whose partner lies in direction ``d``: what the observation counts;
* ``near[n, i, L]`` (classic variant only): bit ``c`` set when a neighbour of ``i`` holds a
  piece of colour ``c`` at storey level ``L`` (a roof at base ``b`` holds level ``b``): the
  Python engine's ``near`` bit masks turned sideways, for the "never touch" rule;
* ``log[n, :log_len[n]]``: every piece end put on the board, ``i * 32 + piece code`` in
  the order placed (a bridge is two entries), from which :meth:`SkybridgeBatch.get_state`
  rebuilds the towers and the classic scoring finds the bridges;
* ``supply[n, seat, slot, k]`` (``[T, S, B, R]``) and ``pieces[n]`` (pieces on the board:
  the turn counter of ``max_turns``).

The rules are those of ``state.py`` (the readable reference, which the oracle tests hold
this engine to bit for bit), written over these arrays: ``_settle`` is ``_start_turn``
with ``_seed_bits`` / ``_seat_actions``, ``_scores`` and ``_returns`` are ``scores`` and
``returns``, and ``_write_observation`` computes the seat-relative channels of
``observation.py`` directly. Set-up draws nothing at random, so a new game is a cleared
slot settled for seat 0.

Three compiled entry points (``_step``, ``_reset``, ``_load``), cached on disk. They take
the arrays grouped in named tuples and unpack them once; the helpers a step calls take
plain arrays and call nothing themselves. Both for speed: numba reference-counts (with
atomic operations) each array it takes out of a tuple, and the arrays of any function
that calls another, which in the per-slot loop would cost more than the rules.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from sky_envs.core.batched import BatchedGames
from sky_envs.games.skybridge.observation import NUM_CHANNELS
from sky_envs.games.skybridge.pieces import BRIDGE, NUM_COLOURS, OPPOSITE, ROOF, SHORT, TALL
from sky_envs.games.skybridge.state import SkybridgeState

ENDS = NUM_COLOURS   # the column of ``counts`` after the storeys of each colour

#: the configuration's numbers (scalars only: free to pass to every helper)
Sizes = namedtuple("Sizes", [
    "num_players", "num_slots", "num_foundations", "num_edges", "slot_size", "num_actions", "classic",
    "score_reward", "max_turns", "keep_final",
])
#: the configuration's tables (from the game's own)
Tables = namedtuple("Tables", [
    "action_parts",    # (A, 4): slot, kind, target, supply index (``game.action_parts``)
    "edges",           # (E, 4): foundations a and b, the direction a -> b, and b -> a
    "neighbour_at",    # (B, 4): the foundation in direction n e s w, or -1
    "slot_colour",     # (P, 2): the colour of each seat's slots (-1: unused)
    "colour_seat",     # (4,): the seat playing each colour (-1: neutral)
    "colour_rank",     # (P, 4): a colour's seat-relative index for each observer
    "initial_supply",  # (P, 2, 4)
])
#: the games' state (see the module docstring)
Slots = namedtuple("Slots", ["height", "top", "counts", "bridges", "near", "log", "log_len", "supply", "pieces"])
#: the engine's outputs (``BatchedGames``' arrays, observations as ``(N, B, channels)`` views)
Outputs = namedtuple("Outputs", [
    "observation", "action_mask", "current_player", "rewards", "terminated", "truncated",
    "final_observation", "final_player",
])


# ------------------------------------------------------------------ placement
@njit(cache=True, error_model="numpy")
def _place(height, top, counts, bridges, near, log, log_len, neighbour_at, classic, n, i, piece):
    """Put ``piece`` on top of tower ``i`` of slot ``n`` and update the derived arrays."""
    colour, kind = piece >> 3, piece & 7
    base = height[n, i]
    storeys = 1 if kind >= BRIDGE else 3 if kind == TALL else 2 if kind == SHORT else 0
    if classic:
        span = storeys if storeys > 0 else 1
        bit = 1 << colour
        for d in range(4):
            j = neighbour_at[i, d]
            if j >= 0:
                for level in range(base, base + span):
                    near[n, j, level] |= bit
    height[n, i] = base + storeys
    top[n, i] = piece
    counts[n, i, colour] += storeys
    if kind >= BRIDGE:
        bridges[n, i, 4 * colour + kind - BRIDGE] += 1
        counts[n, i, ENDS] += 1
    log[n, log_len[n]] = i * 32 + piece
    log_len[n] += 1


# ------------------------------------------------------------------ legal moves
@njit(cache=True, error_model="numpy")
def _settle(height, top, near, supply, slot_colour, edges, z, n, seat, mask, bridge_edges):
    """``SkybridgeState._start_turn``: find the first seat from ``seat`` on that can place
    and write its legal actions into ``mask[n]``; returns (that seat or -1 when nobody can
    place, the lowest open level or -1 when every tower is roofed).

    The rules of ``_seed_bits`` / ``_seat_actions``, written without branches where the
    towers are scanned. Blocks go on the open towers at the lowest height where the
    own-colour rule allows them (seed variant, if it allows them nowhere: on every open
    tower at the lowest level); roofs on open towers of height >= 1 that the rule allows;
    bridges as ``_bridge_edges`` says, where the rule allows both ends. The classic rule
    reads ``near`` at the levels the piece would span (``SkybridgeState.fits``). One
    function that calls nothing (see the module docstring).
    """
    B, classic, P = z.num_foundations, z.classic, z.num_players
    never = 1 << 30   # above any height
    # the lowest open level, and the lowest open tower whose top is not of colour 0, 1, 2, 3
    # (seed: where blocks of that colour go)
    low = not_0 = not_1 = not_2 = not_3 = never
    for i in range(B):
        piece = top[n, i]
        closed = (piece & 7 == ROOF) & (piece >= 0)
        h = never if closed else height[n, i]
        colour = piece >> 3
        low = min(low, h)
        not_0 = min(not_0, never if colour == 0 else h)
        not_1 = min(not_1, never if colour == 1 else h)
        not_2 = min(not_2, never if colour == 2 else h)
        not_3 = min(not_3, never if colour == 3 else h)
    if low == never:
        return -1, -1
    candidates = -1
    for k in range(P):
        q = seat + k - P if seat + k >= P else seat + k
        for a in range(z.num_actions):
            mask[n, a] = False
        found = False
        for slot in range(z.num_slots):
            colour = slot_colour[q, slot]
            bit = 1 << colour
            base = slot * z.slot_size
            tall, short = supply[n, q, slot, 0] > 0, supply[n, q, slot, 1] > 0
            roofs, bridges = supply[n, q, slot, 3] > 0, supply[n, q, slot, 2] > 0
            # the lowest heights where each block fits
            best_tall = best_short = not_0 if colour == 0 else not_1 if colour == 1 else not_2 if colour == 2 else not_3
            if classic and (tall or short):
                best_tall = best_short = never
                for i in range(B):
                    piece = top[n, i]
                    h = height[n, i]
                    skip = ((piece & 7 == ROOF) & (piece >= 0)) | (piece >> 3 == colour)
                    two = 0 if skip else near[n, i, h] | near[n, i, h + 1]
                    three = 0 if skip else two | near[n, i, h + 2]
                    best_short = min(best_short, never if skip | (two & bit != 0) else h)
                    best_tall = min(best_tall, never if skip | (three & bit != 0) else h)
            fallback = not classic and best_tall == never   # every open tower has this colour on top
            if tall or short or roofs:   # (in the fallback no roof fits either)
                for i in range(B):
                    piece = top[n, i]
                    h = height[n, i]
                    placeable = not ((piece & 7 == ROOF) & (piece >= 0))
                    free = placeable & (piece >> 3 != colour)
                    one = two = three = 0
                    if classic:
                        one = near[n, i, h]
                        two = one | near[n, i, h + 1]
                        three = two | near[n, i, h + 2]
                    lowest = fallback & placeable & (h == low)
                    tall_here = tall & ((free & (h == best_tall) & (three & bit == 0)) | lowest)
                    short_here = short & ((free & (h == best_short) & (two & bit == 0)) | lowest)
                    roof_here = roofs & free & (h > 0) & (one & bit == 0)
                    mask[n, base + i] = tall_here
                    mask[n, base + B + i] = short_here
                    mask[n, base + 2 * B + i] = roof_here
                    found |= tall_here | short_here | roof_here
            if bridges and (classic or low > 0):   # seed: bridges go on the lowest level
                if candidates < 0:   # the edges where a bridge of some colour may go, once per turn
                    candidates = 0
                    for e in range(z.num_edges):
                        a, b = edges[e, 0], edges[e, 1]
                        h = height[n, a]
                        top_a, top_b = top[n, a], top[n, b]
                        ok = (h > 0) & (height[n, b] == h) & (top_a & 7 <= SHORT) & (top_b & 7 <= SHORT)
                        if not classic:
                            ok &= (h == low) & (top_a >> 3 != top_b >> 3)
                        bridge_edges[e] = ok
                        candidates += ok
                for e in range(z.num_edges if candidates > 0 else 0):
                    if bridge_edges[e]:
                        a, b = edges[e, 0], edges[e, 1]
                        h = height[n, a]
                        if top[n, a] >> 3 == colour or top[n, b] >> 3 == colour:
                            continue
                        if classic and (near[n, a, h] | near[n, b, h]) & bit:
                            continue
                        mask[n, base + 3 * B + e] = True
                        found = True
        if found:
            return q, low
    return -1, low


# ------------------------------------------------------------------ end of a game
@njit(cache=True, error_model="numpy")
def _scores(height, top, log, log_len, neighbour_at, colour_seat, z, n, out):
    """Points per seat (``SkybridgeState.scores``) into ``out``."""
    out[:] = 0
    for i in range(z.num_foundations):
        piece = top[n, i]
        if piece < 0:
            continue
        seat = colour_seat[piece >> 3]
        if seat < 0:
            continue
        kind = piece & 7
        points = height[n, i]
        if z.classic:   # only roofed towers score, for the roof's seat
            if kind == ROOF:
                out[seat] += points
            continue
        if kind >= BRIDGE:
            d = kind - BRIDGE
            j = neighbour_at[i, d]
            if top[n, j] >= 0 and top[n, j] & 7 == BRIDGE + OPPOSITE[d]:   # the whole bridge is still on top
                points *= 2
        out[seat] += points
    if not z.classic:
        return
    for k in range(log_len[n]):
        entry = log[n, k]
        d = (entry & 7) - BRIDGE
        if d != 1 and d != 2:   # each bridge once, from its west / north end
            continue
        seat = colour_seat[(entry >> 3) & 3]
        if seat < 0:
            continue
        a = entry >> 5
        b = neighbour_at[a, d]
        roofed_a = top[n, a] & 7 == ROOF and colour_seat[top[n, a] >> 3] == seat
        roofed_b = top[n, b] & 7 == ROOF and colour_seat[top[n, b] >> 3] == seat
        if roofed_a and roofed_b:
            out[seat] += height[n, a] + height[n, b]
        elif roofed_a:
            out[seat] += height[n, b]
        elif roofed_b:
            out[seat] += height[n, a]


@njit(cache=True, error_model="numpy")
def _returns(scores, z, rewards, n):
    """``SkybridgeState.returns`` of a finished game into ``rewards[n]`` (float64 arithmetic
    as there, stored as float32)."""
    P = z.num_players
    if z.score_reward:
        total = scores.sum()
        for seat in range(P):
            rewards[n, seat] = scores[seat] - (total - scores[seat]) / (P - 1)
        return
    best = scores.max()
    winners = 0
    for seat in range(P):
        if scores[seat] == best:
            winners += 1
    if winners < P:
        for seat in range(P):
            rewards[n, seat] = 1.0 if scores[seat] == best else -1.0


# ------------------------------------------------------------------ observation
@njit(cache=True, error_model="numpy")
def _write_observation(height, top, counts, bridges, supply, colour_rank, colour_seat, z, n, seat, low, out, m):
    """``state.observation(seat)`` of slot ``n`` into ``out[m]`` (``(B, 34)``): the channels
    of ``observation.py``, seat-relative colours through ``colour_rank``."""
    for i in range(z.num_foundations):
        for channel in range(NUM_CHANNELS):
            out[m, i, channel] = 0.0
        h = height[n, i]
        piece = top[n, i]
        out[m, i, 0] = h
        if piece >= 0:
            kind = piece & 7
            out[m, i, 3 + colour_rank[seat, piece >> 3]] = 1.0
            if kind == ROOF:
                out[m, i, 1] = 1.0
            elif kind >= BRIDGE:
                out[m, i, 9] = 1.0
                out[m, i, 10 + kind - BRIDGE] = 1.0
            else:
                out[m, i, 7 + kind] = 1.0
        if h == low and not (piece >= 0 and piece & 7 == ROOF):
            out[m, i, 2] = 1.0
        for c in range(NUM_COLOURS):
            out[m, i, 22 + colour_rank[seat, c]] = counts[n, i, c]
        if counts[n, i, ENDS] > 0:
            for c in range(NUM_COLOURS):
                channel = 14 if colour_seat[c] == seat else 18
                for d in range(4):
                    out[m, i, channel + d] += bridges[n, i, 4 * c + d]
        for slot in range(z.num_slots):
            for k in range(4):
                out[m, i, 26 + 4 * slot + k] = supply[n, seat, slot, k]


# ------------------------------------------------------------------ entry points
@njit(cache=True)
def _new_game(s, tables, z, o, n, bridge_edges):
    """A new game in slot ``n`` (set-up draws nothing at random, and seat 0 can always place)."""
    height, top, counts, bridges, near, log, log_len, supply, pieces = s
    height[n, :] = 0
    top[n, :] = -1
    counts[n, :, :] = 0
    bridges[n, :, :] = 0
    if z.classic:
        near[n, :, :] = 0
    log_len[n] = 0
    supply[n] = tables.initial_supply
    pieces[n] = 0
    seat, low = _settle(height, top, near, supply, tables.slot_colour, tables.edges, z, n, 0, o.action_mask,
                        bridge_edges)
    o.current_player[n] = seat
    _write_observation(height, top, counts, bridges, supply, tables.colour_rank, tables.colour_seat, z, n, seat, low,
                       o.observation, n)


@njit(cache=True)
def _reset(s, tables, z, o):
    bridge_edges = np.empty(z.num_edges, dtype=np.bool_)   # _settle's scratch
    o.rewards[:, :] = 0.0
    o.terminated[:] = False
    o.truncated[:] = False
    o.final_player[:] = -1
    for n in range(o.current_player.shape[0]):
        _new_game(s, tables, z, o, n, bridge_edges)


@njit(cache=True)
def _step(s, tables, z, o, actions, next_seeds, active, seeds, final_observer):
    """``BatchedGames.step`` for every slot (see ``core/batched.py``); ``seeds[n]`` becomes
    ``next_seeds[n]`` where a new game starts."""
    height, top, counts, bridges, near, log, log_len, supply, pieces = s
    action_parts, edges, neighbour_at, slot_colour, colour_seat, colour_rank, _ = tables
    observation, mask, current_player, rewards, terminated, truncated, final_observation, final_player = o
    P, classic = z.num_players, z.classic
    scores = np.zeros(P, dtype=np.int64)
    bridge_edges = np.empty(z.num_edges, dtype=np.bool_)   # _settle's scratch
    rewards[:, :] = 0.0
    terminated[:] = False
    truncated[:] = False
    final_player[:] = -1
    for n in range(height.shape[0]):
        if not active[n]:
            continue
        mover = current_player[n]
        action = actions[n]
        slot, kind, target = action_parts[action, 0], action_parts[action, 1], action_parts[action, 2]
        colour = slot_colour[mover, slot]
        if kind == BRIDGE:
            _place(height, top, counts, bridges, near, log, log_len, neighbour_at, classic, n, edges[target, 0],
                   colour * 8 + BRIDGE + edges[target, 2])
            _place(height, top, counts, bridges, near, log, log_len, neighbour_at, classic, n, edges[target, 1],
                   colour * 8 + BRIDGE + edges[target, 3])
        else:
            _place(height, top, counts, bridges, near, log, log_len, neighbour_at, classic, n, target,
                   colour * 8 + kind)
        supply[n, mover, slot, action_parts[action, 3]] -= 1
        pieces[n] += 1
        seat, low = _settle(height, top, near, supply, slot_colour, edges, z, n, (mover + 1) % P, mask,
                            bridge_edges)
        if seat >= 0 and pieces[n] < z.max_turns:
            current_player[n] = seat
            _write_observation(height, top, counts, bridges, supply, colour_rank, colour_seat, z, n, seat, low,
                               observation, n)
            continue
        if seat < 0:
            terminated[n] = True
            _scores(height, top, log, log_len, neighbour_at, colour_seat, z, n, scores)
            _returns(scores, z, rewards, n)
        else:
            truncated[n] = True
        final_player[n] = mover
        if z.keep_final:
            seen_by = mover if final_observer[n] < 0 else final_observer[n]
            _write_observation(height, top, counts, bridges, supply, colour_rank, colour_seat, z, n, seen_by, low,
                               final_observation, n)
        _new_game(s, tables, z, o, n, bridge_edges)
        seeds[n] = next_seeds[n]


@njit(cache=True)
def _load(s, tables, z, o, n, entries, new_supply, to_move):
    """Slot ``n`` := the position of ``entries`` (``i * 32 + piece``, tower by tower, bottom to
    top) and ``new_supply``, settled from ``to_move``; returns the seat to move, or -1 where
    the position is over."""
    height, top, counts, bridges, near, log, log_len, supply, pieces = s
    bridge_edges = np.empty(z.num_edges, dtype=np.bool_)   # _settle's scratch
    _new_game(s, tables, z, o, n, bridge_edges)
    for k in range(entries.shape[0]):
        piece = entries[k] & 31
        _place(height, top, counts, bridges, near, log, log_len, tables.neighbour_at, z.classic, n, entries[k] >> 5,
               piece)
        d = (piece & 7) - BRIDGE
        if d < 0 or d == 1 or d == 2:   # a bridge counts once
            pieces[n] += 1
    supply[n] = new_supply
    seat, low = _settle(height, top, near, supply, tables.slot_colour, tables.edges, z, n, to_move,
                        o.action_mask, bridge_edges)
    if seat < 0 or pieces[n] >= z.max_turns:
        return -1
    o.current_player[n] = seat
    _write_observation(height, top, counts, bridges, supply, tables.colour_rank, tables.colour_seat, z, n, seat, low,
                       o.observation, n)
    return seat


# ------------------------------------------------------------------ the engine
def _configuration(game, keep_final: bool) -> tuple[Sizes, Tables]:
    P = game.num_players
    slot_colour = np.full((P, 2), -1, dtype=np.int64)
    supply = np.zeros((P, 2, 4), dtype=np.int16)
    for seat in range(P):
        for slot, colour in enumerate(game.slot_colour[seat]):
            slot_colour[seat, slot] = colour
            supply[seat, slot] = game.initial_supply[seat][slot]
    sizes = Sizes(num_players=P, num_slots=game.num_slots, num_foundations=game.num_foundations,
                  num_edges=len(game.edges), slot_size=game.slot_size, num_actions=game.num_actions,
                  classic=game.classic, score_reward=game.reward == "score", max_turns=game.max_turns,
                  keep_final=keep_final)
    tables = Tables(
        action_parts=np.array(game.action_parts, dtype=np.int64),
        edges=np.array([(a, b, d, OPPOSITE[d]) for a, b, d in game.edges], dtype=np.int64).reshape(-1, 4),
        neighbour_at=np.array(game.neighbour_at, dtype=np.int64),
        slot_colour=slot_colour,
        colour_seat=np.array(game.colour_seat, dtype=np.int64),
        colour_rank=np.array(game.colour_rank, dtype=np.int64),
        initial_supply=supply)
    return sizes, tables


def _layout(game, num_envs: int) -> dict[str, tuple[tuple[int, ...], type, int]]:
    """Each field of :class:`Slots`: its shape, dtype and starting value."""
    N, B = num_envs, game.num_foundations
    # a tower holds at most every storey in play (one end of each bridge); a piece's check
    # reads up to 3 levels above the tower's height
    levels = game.total_storeys + 3 if game.classic else 1
    log_size = sum(t + s + 2 * b + r for t, s, b, r in game.colour_total)
    return dict(
        height=((N, B), np.int16, 0), top=((N, B), np.int8, -1),
        counts=((N, B, NUM_COLOURS + 1), np.int16, 0), bridges=((N, B, 4 * NUM_COLOURS), np.int16, 0),
        near=((N if game.classic else 1, B, levels), np.int8, 0), log=((N, max(log_size, 1)), np.int32, 0),
        log_len=((N,), np.int32, 0), supply=((N, game.num_players, 2, 4), np.int16, 0), pieces=((N,), np.int32, 0))


def state_bytes(game) -> int:
    """The bytes of one game's state arrays (outputs not counted)."""
    return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype, _ in _layout(game, 1).values())


#: :meth:`SkybridgeGame.batched_games` leaves configurations whose games need more than
#: this (classic variant: ``near`` grows with board size x storeys in play) to the
#: reference engine, whose states grow with what is on the board instead
MAX_STATE_BYTES = 1 << 20


def _slots(game, num_envs: int) -> Slots:
    layout = _layout(game, num_envs)
    return Slots(**{name: np.full(shape, fill, dtype=dtype) for name, (shape, dtype, fill) in layout.items()})


class SkybridgeBatch(BatchedGames):
    """``num_envs`` Skybridge games over arrays, stepped by one compiled call (see the
    module docstring). It plays every option set; ``SkybridgeGame.batched_games`` hands it
    out where one game's arrays stay within :data:`MAX_STATE_BYTES`."""

    def __init__(self, game, num_envs: int, keep_final_observation: bool = True):
        super().__init__(game, num_envs, keep_final_observation)
        B = game.num_foundations
        self.sizes, self.tables = _configuration(game, keep_final_observation)
        self.slots = _slots(game, num_envs)
        final = self.final_observation if keep_final_observation else np.zeros((1, *game.observation_shape), np.float32)
        self.outputs = Outputs(
            self.observation.reshape(num_envs, B, NUM_CHANNELS), self.action_mask, self.current_player,
            self.rewards, self.terminated, self.truncated, final.reshape(-1, B, NUM_CHANNELS), self.final_player)
        # the generator each slot's game was given: its seed, or (seed -1) a position's own
        self.seeds = np.zeros(num_envs, dtype=np.int64)
        self._position_rngs: dict[int, tuple] = {}

    def reset(self, seeds: np.ndarray) -> None:
        self.seeds[:] = seeds
        self._position_rngs.clear()
        _reset(self.slots, self.tables, self.sizes, self.outputs)

    def step(self, actions: np.ndarray, next_seeds: np.ndarray, active: np.ndarray) -> None:
        _step(self.slots, self.tables, self.sizes, self.outputs, actions, next_seeds, active, self.seeds,
              self.final_observer)

    def set_state(self, slot: int, state: SkybridgeState) -> None:
        if state.game.env_id != self.game.env_id or state.game.options() != self.game.options():
            raise ValueError(f"a {state.game.env_id} position with options {state.game.options()} cannot go into "
                             f"a batch of {self.game.env_id} with options {self.game.options()}")
        if state.current_player < 0:
            raise ValueError(f"slot {slot}: the position is over; a slot holds a game in play")
        entries = np.array([i * 32 + piece for i, stack in enumerate(state.stacks) for piece in stack], dtype=np.int64)
        supply = np.zeros_like(self.tables.initial_supply)
        for seat, slots in enumerate(state.supply):
            for index, counts in enumerate(slots):
                supply[seat, index] = counts
        seat = _load(self.slots, self.tables, self.sizes, self.outputs, slot, entries, supply, state.current_player)
        if seat != state.current_player:
            raise RuntimeError(f"slot {slot}: the compiled engine gives seat {seat} to move where the position "
                               f"has player_{state.current_player}")
        bit_generator = state.rng.bit_generator
        self.seeds[slot] = -1
        self._position_rngs[slot] = (type(bit_generator), bit_generator.state)

    def get_state(self, slot: int) -> SkybridgeState:
        s, game = self.slots, self.game
        stacks = [[] for _ in range(game.num_foundations)]
        for entry in s.log[slot, :s.log_len[slot]].tolist():
            stacks[entry >> 5].append(entry & 31)
        supply = [[s.supply[slot, seat, index].tolist() for index in range(game.num_slots)]
                  for seat in range(game.num_players)]
        return SkybridgeState(game, stacks, supply, int(self.current_player[slot]), self._rng(slot))

    def _rng(self, slot: int) -> np.random.Generator:
        """A generator in the state the slot's game was given (Skybridge never draws from it)."""
        if self.seeds[slot] >= 0:
            return np.random.default_rng(int(self.seeds[slot]))
        kind, snapshot = self._position_rngs[slot]
        bit_generator = kind(0)
        bit_generator.state = snapshot
        return np.random.Generator(bit_generator)
