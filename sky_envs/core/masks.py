"""Read-only legal masks shared by every state, built once per distinct set of actions.

Building a bool mask from a few legal actions costs a couple of microseconds, more than
many games' whole move, while the sets a game meets repeat a lot: each distinct set is
built once and shared. The arrays are views of immutable ``bytes``, so nobody can make
them writeable again. Each cache keeps at most about ``CACHE_BYTES`` of masks (past that,
masks are built and not kept: the sets met first, the common ones, stay).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CACHE_BYTES = 16 << 20


def _limit(num_actions: int) -> int:
    """How many masks of ``num_actions`` a cache keeps (a mask and its key cost about
    ``num_actions + 256`` bytes)."""
    return CACHE_BYTES // (num_actions + 256)


#: per action count: masks by the set as an int (bit a = action a), and by the actions tuple
_BY_BITS: dict[int, dict[int, np.ndarray]] = {}
_BY_ACTIONS: dict[int, dict[tuple[int, ...], np.ndarray]] = {}


#: byte value -> its 8 bits, least significant first, as bool bytes (0 or 1)
_BYTE_BOOLS = [bytes((value >> bit) & 1 for bit in range(8)) for value in range(256)]


def mask_from_bits(bits: int, num_actions: int) -> np.ndarray:
    """The read-only bool mask of ``num_actions`` with exactly the set bits of ``bits``."""
    cache = _BY_BITS.get(num_actions)
    if cache is None:
        cache = _BY_BITS[num_actions] = {}
    mask = cache.get(bits)
    if mask is None:  # each byte of the int spelled out as 8 bool bytes: cheaper than numpy's unpackbits
        spelled = b"".join([_BYTE_BOOLS[byte] for byte in bits.to_bytes((num_actions + 7) // 8, "little")])
        mask = np.frombuffer(spelled, dtype=bool, count=num_actions)
        if len(cache) < _limit(num_actions):
            cache[bits] = mask
    return mask


def mask_from_actions(actions: Sequence[int], num_actions: int) -> np.ndarray:
    """The read-only bool mask of ``num_actions`` that is true at exactly ``actions``."""
    key = tuple(actions)
    cache = _BY_ACTIONS.get(num_actions)
    if cache is None:
        cache = _BY_ACTIONS[num_actions] = {}
    mask = cache.get(key)
    if mask is None:
        buf = bytearray(num_actions)
        for action in key:
            buf[action] = 1
        mask = np.frombuffer(bytes(buf), dtype=bool)
        if len(cache) < _limit(num_actions):
            cache[key] = mask
    return mask
