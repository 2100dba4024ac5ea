"""Highrise Heist and Golden Rush over arrays of games: the compiled engine behind
:mod:`sky_envs.vector` for both modes (``Game.batched_games``).

:class:`HighriseHeistBatch` keeps every slot's position as a structure of arrays (block
colours by level, heights, top group sizes, turn, phase, ``closed_this_turn``, the
eligibility queue) and steps all slots in one compiled call
(:func:`~sky_envs.games.highrise_heist.batched_kernel.advance`), which applies the action,
settles the turn, and writes the next mask and observation, or the end of the game and the
next game. The kernel reads the game's own lookup tables
(:mod:`~sky_envs.games.highrise_heist.tables`), packed here once per configuration as
flat arrays. ``set_state`` / ``get_state`` convert one slot to and from an ordinary
:class:`~sky_envs.games.highrise_heist.state.StackState`, the readable reference that the
oracle tests hold this engine to, bit for bit.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sky_envs.core.batched import BatchedGames
from sky_envs.games.highrise_heist import batched_kernel as kernel
from sky_envs.games.highrise_heist.heist import HeistState
from sky_envs.games.highrise_heist.layout import ActionLayout
from sky_envs.games.highrise_heist.observation import _QUEUE_RANK
from sky_envs.games.highrise_heist.rush import (CENTRE_POINTS, FAR_POINTS, NEAR_POINTS, SCORE_SCALE, TEAM_BONUS,
                                                RushState)
from sky_envs.games.highrise_heist.state import HEIGHT
from sky_envs.games.highrise_heist.tables import StandTables

#: Golden Rush's queue rank channels (``observation.rush_observation`` writes 18..21)
RUSH_QUEUE_CHANNEL = 18
#: the flags contexts (``observation.feature_tables``) of the seat to move in a transfer
#: phase after the opening: "my decision" alone
HEIST_BASE_CONTEXT, RUSH_BASE_CONTEXT = 16, 2


@lru_cache(maxsize=None)
def kernel_tables(tables: StandTables, num_stands: int, swap: bool, base_context: int) -> tuple:
    """One configuration's lookup tables as the flat arrays the kernel reads, in its order
    (see ``batched_kernel.advance``).

    The tables name the stand in every code, so that they rule out a transfer onto its own
    stand and tell single placements from pairs; apart from that, every stand reads the
    same entries. The kernel tests those two things itself and reads one stand's share of
    each table (kilobytes, where the whole tables take a megabyte of cache): the transfer
    block of stands (0, 1), the single placements of stand 0, the pair block of stands
    (0, 1), the codes and level rows of stand 0, plus each stand's offset of feature rows.
    Checked here, entry by entry, against the whole tables. The feature rows are those of
    flags context ``base_context`` (the kernel sets the context's channels itself)."""
    S = num_stands
    layout = ActionLayout(S, swap)
    span = len(tables.source_of) // S  # stand keys per stand
    stands = np.arange(S)[:, None]
    codes = [np.asarray(by_key).reshape(S, span) - stands * stride
             for by_key, stride in ((tables.source_of, tables.src_stride), (tables.target_of, tables.tgt_stride),
                                    (tables.place_of, tables.place_stride))]
    for what, by_stand in zip(("transfer source rows", "transfer target columns", "placement ids"), codes):
        _same_for_every_stand(what, list(by_stand))
    src, tgt = tables.src_stride, tables.tgt_stride
    unique: list[np.ndarray] = []
    for table in tables.transfer:  # movers under the same rule share one table
        if not any(table is known for known in unique):
            unique.append(table)
    transfer_of_mover = [next(k for k, known in enumerate(unique) if known is table) for table in tables.transfer]
    transfer = []
    for table in unique:
        blocks = table[:S * src].reshape(S, src, S, tgt).transpose(0, 2, 1, 3)
        if blocks[np.arange(S), np.arange(S)].any():
            raise RuntimeError("a transfer table allows a transfer onto its own stand")
        _same_for_every_stand("transfer blocks", [blocks[a, b] for a in range(S) for b in range(S) if a != b])
        transfer.append(blocks[0, 1].ravel())
    ps = tables.place_stride
    singles, pairs = [], []
    for table in tables.placement:
        blocks = table.reshape(S, ps, S, ps, 4).transpose(0, 2, 1, 3, 4)
        diagonal = blocks[np.arange(S), np.arange(S)][:, np.arange(ps), np.arange(ps)]  # (stand, id, entry)
        _same_for_every_stand("single placements", list(diagonal))
        _same_for_every_stand("pair placements", [blocks[a, b] for a in range(S) for b in range(a + 1, S)])
        singles.append(diagonal[0].ravel())
        pairs.append(blocks[0, 1].ravel())
    levels = tables.levels.reshape(S, span, HEIGHT)
    offsets = levels[:, 0, 0] - levels[0, 0, 0]
    _same_for_every_stand("level rows", list(levels - offsets[:, None, None]))
    _check_placement_order(tables, layout)
    placements = np.zeros((len(layout.placements), 8), dtype=np.int64)  # 3: parts, 4..: (stand, count)
    for k, parts in enumerate(layout.placements):
        placements[k, 3] = len(parts)
        for p, (stand, blocks) in enumerate(parts):
            placements[k, 4 + 2 * p], placements[k, 5 + 2 * p] = stand, blocks
    features = np.stack([np.stack(per_observer) for per_observer in tables.features])
    context_channels, context_values = _context_channels(features)
    local_codes = np.array([codes[0][0] * tgt, codes[1][0], codes[2][0]], dtype=np.int32)
    return (np.stack(transfer), np.asarray(transfer_of_mover, dtype=np.int64), local_codes, np.stack(singles),
            np.stack(pairs), placements, np.ascontiguousarray(levels[0], dtype=np.int32).ravel(),
            offsets.astype(np.int64), np.ascontiguousarray(features[:, base_context]).reshape(-1).view(np.int64),
            context_channels, context_values,
            np.asarray(_QUEUE_RANK, dtype=np.float32))


def _same_for_every_stand(what: str, arrays: list[np.ndarray]) -> None:
    if not all(np.array_equal(array, arrays[0]) for array in arrays[1:]):
        raise RuntimeError(f"the {what} differ between stands: the batched kernel reads one stand's share")


def _check_placement_order(tables: StandTables, layout: ActionLayout) -> None:
    """The kernel walks the placement actions as the layout orders them (3 single counts
    per stand, then 3 count pairs per stand pair s < t); check that this walk reads the
    cells ``tables.place_flat`` names."""
    S = layout.num_stands
    cells = [(s * S + s) * 4 + k for s in range(S) for k in range(3)]
    cells += [(s * S + t) * 4 + k for s in range(S) for t in range(s + 1, S) for k in range(3)]
    if tables.place_flat[layout.single:layout.single + len(cells)].tolist() != cells:
        raise RuntimeError("the placement actions are not in the order the batched kernel walks them")


def _context_channels(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The channels in which the flags contexts of ``features`` ``[observer, context, row,
    channel]`` differ, and each context's value there. The kernel updates only those
    channels when only the context changed, which is exact because the value is the same
    for every observer and row: checked here."""
    varies = (features != features[:, :1]).any(axis=(0, 1, 2))
    channels = np.flatnonzero(varies)
    values = np.ascontiguousarray(features[0, :, 0][:, channels])
    if not (features[..., channels] == values[None, :, None, :]).all():
        raise RuntimeError("the observation's context channels are not constant planes: "
                           "the batched engine's incremental observations would be wrong")
    return channels.astype(np.int64), values


def _flat(array: np.ndarray) -> np.ndarray:
    """``(N, ...)`` as ``(N, size)``, the same memory: the kernel indexes each slot's row
    flat. Observations are also read as int64 (pairs of channels; their channel counts
    are even): the kernel copies feature rows into them 8 bytes at a time."""
    return array.reshape(len(array), -1)


class HighriseHeistBatch(BatchedGames):
    """``num_envs`` games of Highrise Heist or Golden Rush (either configuration of
    ``game``), stepped by the compiled kernel; see the module docstring."""

    def __init__(self, game, num_envs: int, keep_final_observation: bool = True):
        super().__init__(game, num_envs, keep_final_observation)
        N, S, P = num_envs, game.num_stands, game.num_players
        rush = P == 4
        self._state = (np.full((N, S * HEIGHT), -1, dtype=np.int8),  # cells: colours by stand and level, -1 above
                       np.zeros((N, S), dtype=np.int8),             # heights
                       np.zeros((N, S), dtype=np.int8),             # top group sizes
                       np.zeros(N, dtype=np.int32),                 # turn
                       np.zeros(N, dtype=np.int8),                  # phase
                       np.zeros(N, dtype=np.int8),                  # closed_this_turn
                       np.full((N, 4), -1, dtype=np.int8),          # eligibility queue (Golden Rush)
                       np.zeros(N, dtype=np.int8),                  # its length
                       np.full(N, -1, dtype=np.int64))              # the seed of the slot's game
        # per stand: key, transfer source row offset, target column, placement id
        codes = tuple(np.zeros((N, S), dtype=np.int32) for _ in range(4))
        # what each slot's observation holds: observer, flags context, turn, queue length,
        # and per stand the observation key (-1: blocks changed since)
        seen = (np.full(N, -1, dtype=np.int8), np.zeros(N, dtype=np.int8), np.zeros(N, dtype=np.int32),
                np.zeros(N, dtype=np.int8), np.full((N, S), -1, dtype=np.int32))
        # feature rows are copied from the flags context of the seat to move in a transfer
        # phase (see ``batched_kernel._write_observation``): the most frequent whole writes
        # then need no context channel set; any context would give the same observations
        base_context = RUSH_BASE_CONTEXT if rush else HEIST_BASE_CONTEXT
        tables = kernel_tables(game.tables, S, game.layout.swap >= 0, base_context)
        layout = game.layout
        config = np.zeros(kernel.BASE_CONTEXT + 1, dtype=np.int64)
        config[[kernel.STANDS, kernel.PLAYERS, kernel.RUSH, kernel.MAX_TURNS]] = S, P, rush, game.max_turns
        config[kernel.TEAMS] = rush and game.mode == "teams"
        config[kernel.SCORE_REWARD] = rush and game.reward == "score"
        config[[kernel.NO_TRANSFER, kernel.SINGLE, kernel.PAIR, kernel.SWAP]] = (
            layout.no_transfer, layout.single, layout.pair, layout.swap)
        config[kernel.FRACTION_CHANNEL] = game.observation_shape[-1] - 1
        config[kernel.QUEUE_CHANNEL] = RUSH_QUEUE_CHANNEL if rush else -1
        config[[kernel.CENTRE_POINTS, kernel.NEAR_POINTS, kernel.FAR_POINTS, kernel.TEAM_BONUS]] = (
            CENTRE_POINTS, NEAR_POINTS, FAR_POINTS, TEAM_BONUS)
        config[kernel.SCORE_SCALE] = SCORE_SCALE  # 100: an integer, divided as a float
        config[kernel.KEEP_FINAL] = keep_final_observation
        config[kernel.PLACE_ROW] = game.tables.place_stride * 4
        config[kernel.BASE_CONTEXT] = base_context
        final = self.final_observation
        if final is None:  # no final observations are written; the kernel still takes an array
            final = np.zeros((1, *game.observation_shape), dtype=np.float32)
        outputs = (_flat(self.observation), self.action_mask, self.current_player, self.rewards, self.terminated,
                   self.truncated, _flat(final), self.final_player, _flat(self.observation).view(np.int64),
                   _flat(final).view(np.int64))
        #: the kernel's arguments after its first few (see ``batched_kernel.advance``)
        self._arrays = (*outputs, *self._state, *codes, *seen, *tables, config)
        self._seen_seat = seen[0]
        self._everywhere = np.ones(N, dtype=bool)
        self._no_actions = np.zeros(N, dtype=np.int64)

    def reset(self, seeds: np.ndarray) -> None:
        kernel.advance(kernel.RESTART, 0, self.num_envs, self._no_actions, np.ascontiguousarray(seeds, dtype=np.int64),
                       self._everywhere, *self._arrays)

    def step(self, actions: np.ndarray, next_seeds: np.ndarray, active: np.ndarray) -> None:
        kernel.advance(kernel.STEP, 0, self.num_envs, np.ascontiguousarray(actions, dtype=np.int64),
                       np.ascontiguousarray(next_seeds, dtype=np.int64), np.ascontiguousarray(active, dtype=bool),
                       *self._arrays)

    def set_state(self, slot: int, state) -> None:
        if state.game.env_id != self.game.env_id:
            raise ValueError(f"a {state.game.env_id} position cannot go into a batch of {self.game.env_id}")
        if state.current_player < 0:
            raise ValueError(f"slot {slot}: the position is over; a slot holds a game in play")
        cells, heights, groups, turn, phase, closed, queue, queue_len, seeds = self._state
        cells[slot] = state.cells.ravel()
        heights[slot] = state.heights
        groups[slot] = state.groups
        turn[slot] = state.turn
        phase[slot] = state.phase
        closed[slot] = state.closed_this_turn
        seeds[slot] = -1  # not known; neither mode has chance, so no rng is ever drawn from
        if self.game.num_players == 4:
            queue[slot] = -1
            queue[slot, :len(state.queue)] = state.queue
            queue_len[slot] = len(state.queue)
        kernel.advance(kernel.REFRESH, slot, slot + 1, self._no_actions, self._no_actions, self._everywhere,
                       *self._arrays)

    def get_state(self, slot: int):
        cells, heights, groups, turn, phase, closed, queue, queue_len, seeds = self._state
        stands = [cells[slot, s * HEIGHT:s * HEIGHT + heights[slot, s]].tolist() for s in range(self.game.num_stands)]
        rng = np.random.default_rng(int(seeds[slot])) if seeds[slot] >= 0 else None
        position = (self.game, stands, int(turn[slot]), int(phase[slot]), bool(closed[slot]))
        if self.game.num_players == 4:
            return RushState(*position, queue[slot, :queue_len[slot]].tolist(), rng)
        return HeistState(*position, rng)
