"""Freed memory kept for reuse in a training process: glibc's allocator told not to hand
large blocks back to the system.

A PPO update allocates the same large tensors again and again: each minibatch's
observations (Golden Rush: 1,024 x 2,574 numbers, 10 MB), their log scale, the bfloat16
casts, the gradients. glibc serves a block over its mmap threshold (128 KB to start with,
raised as such blocks are freed) with fresh pages from the system and returns them when it
is freed, and it gives memory at the top of its heap back once over its trim threshold.
Every new page is then faulted in and zeroed by the kernel on its first write: torch's
``log1p`` over a minibatch of Golden Rush's observations took 3 to 4 ms in a run, 1.5 ms
once freed blocks were reused.

:func:`keep_freed_memory` raises both thresholds, so blocks under 1 GiB are served from the
heap and freed memory stays with the process for the next allocation of its size: the process
keeps the memory of its peak (a self-play run's is its rollout and one update's tensors).
What it gives each config, measured in paired runs, is in
``docs/notes/2026-12-06-oneDNN-shapes-and-kept-memory.md``.

It changes no number the process computes. It is applied where a run is set up
(:class:`~training.selfplay.SelfPlayRun`, :class:`~training.alphazero.ExpertIterationRun`),
never on import, and not where the environment sets glibc's allocator itself
(``MALLOC_*_`` variables or ``GLIBC_TUNABLES``: the user's settings stand) or where the C
library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

#: mallopt's parameters (glibc's malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: blocks under this size come from the heap, not from pages mapped for them alone
MMAP_THRESHOLD = 1 << 30
#: freed memory at the top of the heap kept up to this much (mallopt takes an int)
TRIM_THRESHOLD = (1 << 31) - 1

_USERS_OWN = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_",
              "GLIBC_TUNABLES")
_applied: bool | None = None


def keep_freed_memory() -> bool:
    """Tell glibc's allocator to reuse freed memory rather than return it (module docstring),
    once per process; whether it is in effect."""
    global _applied
    if _applied is None:
        _applied = False
        if not any(name in os.environ for name in _USERS_OWN):
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                mallopt = libc.mallopt
            except (OSError, AttributeError):   # not glibc: its allocator has no such settings
                return False
            mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
            _applied = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _applied
