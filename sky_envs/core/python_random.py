"""Python's own ``random.Random(seed).random()`` compiled with numba, number for number.

A random playout (:meth:`~sky_envs.core.state.GameState.random_playout`) takes one draw from
the search's numpy ``Generator`` to seed a ``random.Random``, then picks each ply's move with
its ``random()``. The compiled playouts (:meth:`~sky_envs.core.batched.KernelBatchedGames.play_out`)
make the same picks inside the game's kernel, so that a search gives the same moves whichever
engine plays its playouts. They follow CPython's source (``Modules/_randommodule.c``):

* ``seed_python_random``: ``random_seed`` for an integer ``0 <= seed < 2**63`` (its 32-bit
  words, lowest first, at least one: ``init_by_array`` over ``init_genrand(19650218)``);
* ``python_random``: ``random_random``, 53 bits from two tempered MT19937 words
  (``genrand_uint32``).

A generator here is a ``uint64`` array of :data:`STATE_WORDS` words (:func:`new_python_random`):
MT19937's 624 words, each below ``2**32``, then the index of the next word.
``tests/core/test_python_random.py`` compares it with ``random.Random`` over many seeds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sky_envs.core.numpy_random import NO_REFCOUNT_COMPILE

_N, _M = 624, 397
#: MT19937's words, then the index of the next one to temper
STATE_WORDS = _N + 1
_MASK32 = np.uint64(0xFFFFFFFF)
_UPPER = np.uint64(0x80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_MATRIX_A = np.uint64(0x9908B0DF)
_U0, _U1 = np.uint64(0), np.uint64(1)
_S1, _S7, _S11, _S15 = np.uint64(1), np.uint64(7), np.uint64(11), np.uint64(15)
_S18, _S30, _S32 = np.uint64(18), np.uint64(30), np.uint64(32)
_S5, _S6 = np.uint64(5), np.uint64(6)


def new_python_random() -> np.ndarray:
    """An unseeded generator state (seed it with :func:`seed_python_random`)."""
    return np.zeros(STATE_WORDS, dtype=np.uint64)


@njit(**NO_REFCOUNT_COMPILE)
def _init_genrand(mt, s):
    mt[0] = s & _MASK32
    for i in range(1, _N):
        previous = mt[i - 1]
        mt[i] = (np.uint64(1812433253) * (previous ^ (previous >> _S30)) + np.uint64(i)) & _MASK32
    mt[_N] = _N


@njit(**NO_REFCOUNT_COMPILE)
def seed_python_random(mt, seed):
    """Seed ``mt`` as ``random.Random(seed)`` seeds itself, for an integer ``0 <= seed < 2**63``."""
    seed = np.uint64(seed)
    high = seed >> _S32
    key_length = 2 if high else 1
    _init_genrand(mt, np.uint64(19650218))
    i, j = 1, 0
    for _ in range(max(_N, key_length)):
        key = seed & _MASK32 if j == 0 else high
        previous = mt[i - 1]
        mt[i] = ((mt[i] ^ ((previous ^ (previous >> _S30)) * np.uint64(1664525))) + key + np.uint64(j)) & _MASK32
        i += 1
        j += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
        if j >= key_length:
            j = 0
    for _ in range(_N - 1):
        previous = mt[i - 1]
        mt[i] = ((mt[i] ^ ((previous ^ (previous >> _S30)) * np.uint64(1566083941))) - np.uint64(i)) & _MASK32
        i += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
    mt[0] = _UPPER
    mt[_N] = _N


@njit(**NO_REFCOUNT_COMPILE)
def _twist(mt):
    for k in range(_N):
        y = (mt[k] & _UPPER) | (mt[(k + 1) % _N] & _LOWER)
        mt[k] = mt[(k + _M) % _N] ^ (y >> _S1) ^ (_MATRIX_A if y & _U1 else _U0)
    mt[_N] = 0


@njit(**NO_REFCOUNT_COMPILE)
def _next_uint32(mt):
    if mt[_N] >= _N:
        _twist(mt)
    y = mt[mt[_N]]
    mt[_N] += _U1
    y ^= y >> _S11
    y ^= (y << _S7) & np.uint64(0x9D2C5680)
    y ^= (y << _S15) & np.uint64(0xEFC60000)
    y ^= y >> _S18
    return y & _MASK32


@njit(**NO_REFCOUNT_COMPILE)
def python_random(mt):
    """``random.Random.random()``: a float in [0, 1) from 53 random bits."""
    a = _next_uint32(mt) >> _S5
    b = _next_uint32(mt) >> _S6
    return (float(a) * 67108864.0 + float(b)) * (1.0 / 9007199254740992.0)
