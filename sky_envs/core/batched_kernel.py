"""What the compiled batched engines share: the clearing every one-entry-point kernel
(:class:`~sky_envs.core.batched.KernelBatchedGames`) does to a slot before it steps it,
compiled once and inlined into each game's kernel, and the threads that step runs of
slots side by side (:func:`step_slot_runs`)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numba
from numba import njit

from sky_envs.core.numpy_random import NO_REFCOUNT_COMPILE


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def forget_last_end(i, rewards, terminated, truncated, final_player):
    """Slot ``i``'s game that ended at the last call is forgotten: only the slots a call ends
    hold rewards, an end flag and a final player (-1 elsewhere)."""
    if terminated[i] or truncated[i]:
        rewards[i, :] = 0.0
        terminated[i] = False
        truncated[i] = False
        final_player[i] = -1


#: the threads a batch is stepped on at most (``NUMBA_NUM_THREADS``, by default the machine's cores)
SLOT_THREADS = numba.config.NUMBA_NUM_THREADS
_pool: ThreadPoolExecutor | None = None


def _forget_pool() -> None:
    """In a forked child: the parent's pool threads do not exist there; start a new pool when needed."""
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)


def slot_runs(num_envs: int, smallest: int) -> int:
    """How many runs of neighbouring slots a batch of ``num_envs`` is stepped in: one per
    thread where the batch holds at least ``smallest`` games, else one (a smaller batch loses
    more to handing work to threads than it gains)."""
    return min(SLOT_THREADS, num_envs) if num_envs >= smallest else 1


def step_slot_runs(kernel, num_envs: int, runs: int, *args) -> None:
    """``kernel(first, stop, *args)`` over ``runs`` runs of neighbouring slots covering
    ``0..num_envs``, side by side on threads (this one steps the last run). ``kernel`` is
    compiled with ``nogil=True`` and writes only the slots of its run, so the games, and
    their order, are those of one call over every slot. Python threads, not numba's
    ``parallel=True``: numba's default threading layer on Linux (GNU OpenMP) kills any child
    a process forks after using it (Python's ``fork`` start method, SB3's ``SubprocVecEnv``);
    a forked child starts its own threads."""
    global _pool
    if runs == 1:
        kernel(0, num_envs, *args)
        return
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=SLOT_THREADS - 1, thread_name_prefix="sky_envs-slots")
    bounds = [run * num_envs // runs for run in range(runs + 1)]
    futures = [_pool.submit(kernel, bounds[run], bounds[run + 1], *args) for run in range(runs - 1)]
    kernel(bounds[runs - 1], num_envs, *args)
    for future in futures:
        future.result()
