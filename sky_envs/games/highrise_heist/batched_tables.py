"""The game's lookup tables (:mod:`~sky_envs.games.highrise_heist.tables`) cut down to what
the batched kernel reads, with the checks that make the cuts exact.

The tables name the stand in every code, so that they rule out a transfer onto its own
stand and tell single placements from pairs; apart from that, every stand reads the same
entries. The kernel tests those two things itself and reads one stand's share of each
table: kilobytes that stay in cache, where the whole tables take a megabyte. Its shares
are the transfer block of stands (0, 1), the single placements of stand 0, the pair block
of stands (0, 1), and the codes and level rows of stand 0 (plus each stand's offset of
feature rows). The kernel also skips the transfers of stands without a group to give
(empty or closed), all False in the tables.

The observation's channels split into a *head*, read from the feature tables, and a
*tail* of constant planes (the flags context's channels, the turn fraction, Golden Rush's
queue ranks): the same value in every cell. The kernel copies heads row by row and writes
the tail, built once per observation, into every cell. The head must not depend on the
flags context, and the tail must not depend on the row: both checked here.

Every cut is checked entry by entry against the whole tables when a configuration's
tables are first packed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from sky_envs.games.highrise_heist.batched_kernel import MAX_TAIL
from sky_envs.games.highrise_heist.layout import ActionLayout
from sky_envs.games.highrise_heist.observation import _QUEUE_RANK
from sky_envs.games.highrise_heist.rules import HEIGHT
from sky_envs.games.highrise_heist.tables import StandTables

#: Golden Rush's queue rank channels (``observation.rush_observation`` writes 18..21)
RUSH_QUEUE_CHANNEL = 18


@dataclass(frozen=True)
class KernelTables:
    """One configuration's tables as the kernel reads them (``arrays`` in its order)."""

    arrays: tuple[np.ndarray, ...]
    tail_start: int  # the first channel of the tail (even: cells are copied 8 bytes at a time)
    fraction_channel: int
    queue_channel: int  # -1 in Highrise Heist


@lru_cache(maxsize=None)
def kernel_tables(tables: StandTables, num_stands: int, swap: bool, players: int) -> KernelTables:
    """The arrays of :func:`~sky_envs.games.highrise_heist.batched_kernel.advance`'s table
    arguments: transfer blocks (one per rule), the block of each mover, codes by stand key
    (transfer source row offset, target column, placement id), single and pair placement
    blocks (one per placement context), placement parts, level rows, feature row offset
    per stand, heads (int64 pairs of channels), tails and queue rank values."""
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
        heights = np.arange(span) // (span // (HEIGHT + 1))  # a stand key's height
        if blocks[0, 1][codes[0][0][(heights == 0) | (heights == HEIGHT)]].any():
            raise RuntimeError("a transfer table lets an empty or closed stand give a group")
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
    _check_placement_order(tables, layout)
    placements = np.zeros((len(layout.placements), 8), dtype=np.int64)  # 3: parts, 4..: (stand, count)
    for k, parts in enumerate(layout.placements):
        placements[k, 3] = len(parts)
        for p, (stand, count) in enumerate(parts):
            placements[k, 4 + 2 * p], placements[k, 5 + 2 * p] = stand, count
    levels = tables.levels.reshape(S, span, HEIGHT)
    offsets = levels[:, 0, 0] - levels[0, 0, 0]
    _same_for_every_stand("level rows", list(levels - offsets[:, None, None]))
    features = np.stack([np.stack(per_observer) for per_observer in tables.features])
    queue_channel = RUSH_QUEUE_CHANNEL if players == 4 else -1
    tail_start, heads, tails = _heads_and_tails(features, queue_channel)
    arrays = (np.stack(transfer), np.asarray(transfer_of_mover, dtype=np.int64),
              np.array([codes[0][0] * tgt, codes[1][0], codes[2][0]], dtype=np.int32), np.stack(singles),
              np.stack(pairs), placements, np.ascontiguousarray(levels[0], dtype=np.int32).ravel(),
              offsets.astype(np.int64), heads, tails, np.asarray(_QUEUE_RANK, dtype=np.float32))
    return KernelTables(arrays, tail_start, features.shape[-1] - 1, queue_channel)


def _same_for_every_stand(what: str, arrays: list[np.ndarray]) -> None:
    if not all(np.array_equal(array, arrays[0]) for array in arrays[1:]):
        raise RuntimeError(f"the {what} differ between stands: the batched kernel reads one stand's share")


def _check_placement_order(tables: StandTables, layout: ActionLayout) -> None:
    """The kernel walks the placement actions as the layout orders them (3 single counts
    per stand, then 3 count pairs per stand pair s < t): check that this walk reads the
    cells ``tables.place_flat`` names."""
    S = layout.num_stands
    cells = [(s * S + s) * 4 + k for s in range(S) for k in range(3)]
    cells += [(s * S + t) * 4 + k for s in range(S) for t in range(s + 1, S) for k in range(3)]
    if tables.place_flat[layout.single:layout.single + len(cells)].tolist() != cells:
        raise RuntimeError("the placement actions are not in the order the batched kernel walks them")


def _heads_and_tails(features: np.ndarray, queue_channel: int) -> tuple[int, np.ndarray, np.ndarray]:
    """Split ``features`` ``[observer, context, row, channel]`` into heads (the rows' first
    channels, of context 0, as flat int64 pairs) and tails (per observer and context, the
    constant planes after them, flat); see the module docstring."""
    channels = features.shape[-1]
    written = [channels - 1] + ([queue_channel + k for k in range(4)] if queue_channel >= 0 else [])
    if features[..., written].any():
        raise RuntimeError("the turn fraction and queue rank channels of the feature tables are not zero")
    planes = (features == features[:, :, :1]).all(axis=(0, 1, 2))  # the same in every row
    tail_start = channels
    while tail_start > 0 and planes[tail_start - 1]:
        tail_start -= 1
    tail_start += tail_start % 2
    if not (features[:, :, :, :tail_start] == features[:, :1, :, :tail_start]).all() or min(written) < tail_start:
        raise RuntimeError("the observation's head depends on the flags context: the batched kernel cannot copy it")
    if not 0 < channels - tail_start <= 2 * MAX_TAIL:
        raise RuntimeError(f"the observation's tail of constant planes has {channels - tail_start} channels: "
                           f"the batched kernel writes 2 to {2 * MAX_TAIL}")
    heads = np.ascontiguousarray(features[:, 0, :, :tail_start]).reshape(-1).view(np.int64)
    tails = np.ascontiguousarray(features[:, :, 0, tail_start:]).reshape(-1)
    return tail_start, heads, tails
