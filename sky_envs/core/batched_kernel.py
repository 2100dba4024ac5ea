"""What the compiled batched engines share: the clearing every one-entry-point kernel
(:class:`~sky_envs.core.batched.KernelBatchedGames`) does to a slot before it steps it and
the random move and the end of a compiled playout (:func:`random_legal_action`,
:func:`playout_ended`), the greedy agent's list of moves and choice (:func:`legal_list`,
:func:`greedy_pick`, built on :func:`best_and_ties` and :func:`nth_best`, which the greedy
playouts use too), compiled once and inlined
into each game's kernel, and the threads that step runs of slots side by side
(:func:`step_slot_runs`)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit

from sky_envs.core.numpy_random import NO_REFCOUNT_COMPILE, integers
from sky_envs.core.python_random import python_random


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def forget_last_end(i, rewards, terminated, truncated, final_player):
    """Slot ``i``'s game that ended at the last call is forgotten: only the slots a call ends
    hold rewards, an end flag and a final player (-1 elsewhere)."""
    if terminated[i] or truncated[i]:
        rewards[i, :] = 0.0
        terminated[i] = False
        truncated[i] = False
        final_player[i] = -1


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def legal_list(mask_row, legal):
    """Write the legal actions of ``mask_row`` (bool) into ``legal`` in ascending order, as
    ``GameState.legal_actions`` lists them; returns how many there are."""
    count = 0
    for a in range(mask_row.shape[0]):
        if mask_row[a]:
            legal[count] = a
            count += 1
    return count


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def greedy_pick(legal, values, count, agent):
    """The greedy agent's choice among ``legal[:count]`` valued ``values[:count]``
    (``GreedyAgent._best``): one of the highest values, the tie broken by the agent's next
    draw (``rng.integers(ties)``, from the generator words ``agent``)."""
    best, ties = best_and_ties(values, count)
    return nth_best(legal, values, count, best, integers(agent, 0, ties))


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def best_and_ties(values, count):
    """The highest of ``values[:count]`` and how many of them reach it."""
    best = values[0]
    for c in range(1, count):
        best = max(best, values[c])
    ties = 0
    for c in range(count):
        if values[c] == best:
            ties += 1
    return best, ties


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def nth_best(legal, values, count, best, n):
    """``legal[c]`` for the ``n``-th (from 0, in ascending ``c``) of ``values[:count]``
    equal to ``best``: a tie broken by a draw of ``n``."""
    for c in range(count):
        if values[c] == best:
            if n == 0:
                return legal[c]
            n -= 1
    return -1


#: times a word of eight 0/1 bytes: their sum lands in the top byte
_BYTE_SUM = np.uint64(0x0101010101010101)
_TOP_BYTE = np.uint64(56)


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def random_legal_action(mask_row, mt):
    """The move a random playout picks (:meth:`~sky_envs.core.state.GameState.random_playout`):
    the legal actions of ``mask_row`` (a contiguous bool row) in ascending order, the one at
    ``int(random() * count)`` with ``random()`` Python's (``mt``,
    :mod:`sky_envs.core.python_random`). The row is read eight entries at a time (Scala's
    7,744-entry rows hold a few dozen legal actions)."""
    size = mask_row.shape[0]
    whole = size - size % 8
    words = mask_row[:whole].view(np.uint64)
    count = 0
    for word in words:
        if word:
            count += (word * _BYTE_SUM) >> _TOP_BYTE
    for action in range(whole, size):
        count += mask_row[action]
    rank = int(python_random(mt) * count)
    for index in range(words.shape[0]):
        word = words[index]
        if word:
            held = (word * _BYTE_SUM) >> _TOP_BYTE
            if rank >= held:
                rank -= held
                continue
            for action in range(index * 8, index * 8 + 8):
                if mask_row[action]:
                    if rank == 0:
                        return action
                    rank -= 1
    for action in range(whole, size):
        if mask_row[action]:
            if rank == 0:
                return action
            rank -= 1
    return -1


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def playout_ended(returns, rewards, terminated, truncated):
    """After a playout's step of slot 0: whether its game ended; where it ended by its rules,
    ``returns`` gets slot 0's rewards (a ``max_turns`` cut leaves them zero)."""
    if terminated[0]:
        for seat in range(returns.shape[0]):
            returns[seat] = rewards[0, seat]
        return True
    return truncated[0]


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


def step_slot_runs(kernel, num_envs: int, runs: int, *args) -> list:
    """``kernel(first, stop, *args)`` over ``runs`` runs of neighbouring slots covering
    ``0..num_envs``, side by side on threads (this one steps the last run); the runs' results
    in order. ``kernel`` releases the GIL (a numba kernel compiled with ``nogil=True``, or
    numpy's work on large arrays) and writes only the slots of its run, so the games, and
    their order, are those of one call over every slot. Python threads, not numba's
    ``parallel=True``: numba's default threading layer on Linux (GNU OpenMP) kills any child
    a process forks after using it (Python's ``fork`` start method, SB3's ``SubprocVecEnv``);
    a forked child starts its own threads."""
    global _pool
    if runs == 1:
        return [kernel(0, num_envs, *args)]
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=SLOT_THREADS - 1, thread_name_prefix="sky_envs-slots")
    bounds = [run * num_envs // runs for run in range(runs + 1)]
    futures = [_pool.submit(kernel, bounds[run], bounds[run + 1], *args) for run in range(runs - 1)]
    try:
        last = kernel(bounds[runs - 1], num_envs, *args)
    finally:
        earlier = [future.result() for future in futures]   # all runs end before this returns; an earlier run's error wins
    return earlier + [last]
