"""numpy's seeded draws compiled with numba: ``np.random.default_rng(seed)`` and the few
``Generator`` methods that game set-ups use, number for number.

A batched engine starts many games per call, each of which must be the game
``Game.new_initial_state(np.random.default_rng(seed))`` builds. Making a ``Generator`` and
drawing from it in Python costs tens of microseconds per game, more than the whole game's
moves cost in compiled code; these functions make the same draws inside the compiled
kernel. They follow numpy's own source (numpy 2.x):

* ``seed_default_rng``: ``SeedSequence(seed).generate_state(4, uint64)`` (bit_generator.pyx:
  ``hashmix``/``mix`` over a pool of 4 words) seeding ``PCG64`` (src/pcg64/pcg64.h:
  ``pcg_setseq_128_srandom_r``, 128-bit LCG with XSL-RR output);
* ``next_uint64`` / ``next_uint32``: PCG64's draws, the 32-bit ones buffered as numpy
  buffers them (the unused high half of a 64-bit draw serves the next 32-bit draw);
* ``bounded_uint64`` / ``integers``: ``random_bounded_uint64`` and ``Generator.integers``
  for int64 scalars (src/distributions/distributions.c: Lemire's method on 32-bit draws
  when the range fits 32 bits, on 64-bit draws otherwise; the Generator never uses the
  masked method);
* ``random_interval``, ``shuffle``, ``permutation``: ``Generator.shuffle`` /
  ``permutation`` of 1-d arrays (masked rejection, Fisher-Yates from the end);
* ``choice_without_replacement``: ``Generator.choice(a, size, replace=False)``'s indices
  (Floyd's algorithm then a shuffle, or a tail shuffle for populations over 10,000).

None of them allocates (results go into arrays the caller passes), so that they also
serve kernels compiled without numba's reference counting.

A generator here is a ``uint64`` array of ``STATE_WORDS`` words (``new_bitgen()``): the
128-bit LCG state and increment (high word first), numpy's buffered 32-bit half, and room
to work in while seeding. ``tests/core/test_numpy_random.py`` compares every function with
numpy over many seeds and ranges, and the generator states after them; the one path numpy
offers no small way to reach, ``random_interval`` above ``2**32`` (shuffling arrays of more
than 4 billion items), follows its source without a test.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core.cpu import CPUTargetOptions

#: state high, state low, inc high, inc low, has_uint32, uinteger, then 8 words to seed in
STATE_WORDS = 14
_POOL, _WORDS = 6, 10                 # where seeding keeps SeedSequence's pool and generated words
_U0, _U1 = np.uint64(0), np.uint64(1)
_S1, _S2, _S4, _S8 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(8)
_S16, _S32, _S58, _S63 = np.uint64(16), np.uint64(32), np.uint64(58), np.uint64(63)
_S64 = np.uint64(64)
_S11 = np.uint64(11)
_DOUBLE_UNIT = 1.0 / 9007199254740992.0   # 2**-53
_MASK32 = np.uint64(0xFFFFFFFF)
_MAX64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_MASK64_INT = (1 << 64) - 1
# PCG_DEFAULT_MULTIPLIER_128 (pcg64.h)
_MULT_HIGH = np.uint64(2549297995355413924)
_MULT_LOW = np.uint64(4865540595714422341)
# SeedSequence's hash constants (bit_generator.pyx), uint32 arithmetic done in uint64 and masked
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_POOL_SIZE = 4
#: ``njit`` options of kernels that allocate nothing (these draws, the batched engines):
#: cached, and without numba's reference counting, where each call that passes an array
#: would count a reference with an atomic operation, costing more than a draw. ``_nrt`` is
#: numba's private switch; a numba without it compiles them with reference counts (slower,
#: the same results).
NO_REFCOUNT_COMPILE = dict(cache=True, _nrt=False) if hasattr(CPUTargetOptions, "_nrt") else dict(cache=True)
_COMPILE = NO_REFCOUNT_COMPILE
#: Generator.choice switches from Floyd's algorithm to a tail shuffle above this population
_TAIL_SHUFFLE_POPULATION = 10000


def new_bitgen() -> np.ndarray:
    """An unseeded generator state (seed it with :func:`seed_default_rng`)."""
    return np.zeros(STATE_WORDS, dtype=np.uint64)


def load_generator(words: np.ndarray, rng: np.random.Generator, whose: str) -> None:
    """The compiled generator ``words`` in the state of ``rng`` (numpy's PCG64 only; ``whose``
    names the generator in the error otherwise)."""
    state = rng.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"{whose} is {state.get('bit_generator')}; the compiled engine draws with numpy's "
                         "PCG64 (np.random.default_rng)")
    pcg = state["state"]
    words[:6] = (pcg["state"] >> 64, pcg["state"] & _MASK64_INT, pcg["inc"] >> 64, pcg["inc"] & _MASK64_INT,
                 state["has_uint32"], state["uinteger"])


def generator_words(rng: np.random.Generator) -> np.ndarray:
    """New compiled generator words in the state of an agent's generator ``rng``."""
    words = new_bitgen()
    load_generator(words, rng, "the agent's generator")
    return words


def generator_state(words: np.ndarray) -> dict:
    """The ``bit_generator.state`` of numpy's PCG64 in the state of the compiled generator ``words``."""
    high_state, low_state, high_inc, low_inc, has_uint32, uinteger = words[:6].tolist()
    return {"bit_generator": "PCG64", "state": {"state": high_state << 64 | low_state, "inc": high_inc << 64 | low_inc},
            "has_uint32": has_uint32, "uinteger": uinteger}


def generator(words: np.ndarray) -> np.random.Generator:
    """A numpy ``Generator`` over PCG64 in the state of the compiled generator ``words``."""
    bit_generator = np.random.PCG64(0)
    bit_generator.state = generator_state(words)
    return np.random.Generator(bit_generator)


@njit(**_COMPILE)
def _mul_high(a, b):
    """The high 64 bits of the 128-bit product ``a * b``."""
    a0, a1 = a & _MASK32, a >> _S32
    b0, b1 = b & _MASK32, b >> _S32
    w0 = a0 * b0
    t = a1 * b0 + (w0 >> _S32)
    w1 = (t & _MASK32) + a0 * b1
    return a1 * b1 + (t >> _S32) + (w1 >> _S32)


@njit(**_COMPILE)
def _lcg_step(bitgen):
    """state = state * multiplier + inc (mod 2**128)."""
    high, low = bitgen[0], bitgen[1]
    product_low = low * _MULT_LOW
    product_high = _mul_high(low, _MULT_LOW) + high * _MULT_LOW + low * _MULT_HIGH
    new_low = product_low + bitgen[3]
    carry = _U1 if new_low < product_low else _U0
    bitgen[0] = product_high + bitgen[2] + carry
    bitgen[1] = new_low


@njit(**_COMPILE)
def _hashmix(value, hash_const):
    value = (value ^ hash_const) & _MASK32
    hash_const = (hash_const * _MULT_A) & _MASK32
    value = (value * hash_const) & _MASK32
    return value ^ (value >> _S16), hash_const


@njit(**_COMPILE)
def _mix(x, y):
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> _S16)


@njit(**_COMPILE)
def seed_default_rng(bitgen, seed):
    """Seed ``bitgen`` as ``np.random.default_rng(seed)`` seeds its PCG64, for an integer
    ``0 <= seed < 2**64``: ``SeedSequence(seed)``'s pool, ``generate_state(4, uint64)``,
    then ``pcg64_set_seed(state words 0-1, increment words 2-3)``."""
    seed = np.uint64(seed)
    pool, words = _POOL, _WORDS
    hash_const = _INIT_A
    for i in range(_POOL_SIZE):                       # the seed's 32-bit words, lowest first (at most 2)
        entropy = seed & _MASK32 if i == 0 else seed >> _S32 if i == 1 else _U0
        bitgen[pool + i], hash_const = _hashmix(entropy, hash_const)
    for i_src in range(_POOL_SIZE):
        for i_dst in range(_POOL_SIZE):
            if i_src != i_dst:
                mixed, hash_const = _hashmix(bitgen[pool + i_src], hash_const)
                bitgen[pool + i_dst] = _mix(bitgen[pool + i_dst], mixed)
    hash_const = _INIT_B
    for i in range(8):                                # generate_state(4, uint64): 8 uint32, little-endian pairs
        value = (bitgen[pool + i % _POOL_SIZE] ^ hash_const) & _MASK32
        hash_const = (hash_const * _MULT_B) & _MASK32
        value = (value * hash_const) & _MASK32
        value ^= value >> _S16
        if i % 2 == 0:
            bitgen[words + i // 2] = value
        else:
            bitgen[words + i // 2] |= value << _S32
    # pcg_setseq_128_srandom_r(initstate = words 0-1, initseq = words 2-3)
    bitgen[0], bitgen[1] = _U0, _U0
    bitgen[2] = (bitgen[words + 2] << _S1) | (bitgen[words + 3] >> _S63)
    bitgen[3] = (bitgen[words + 3] << _S1) | _U1
    _lcg_step(bitgen)
    low = bitgen[1] + bitgen[words + 1]
    carry = _U1 if low < bitgen[1] else _U0
    bitgen[0] = bitgen[0] + bitgen[words] + carry
    bitgen[1] = low
    _lcg_step(bitgen)
    bitgen[4], bitgen[5] = _U0, _U0


@njit(**_COMPILE)
def next_uint64(bitgen):
    """PCG64's next 64-bit draw (XSL-RR output of the stepped state)."""
    _lcg_step(bitgen)
    high, low = bitgen[0], bitgen[1]
    value = high ^ low
    rotation = high >> _S58
    return (value >> rotation) | (value << ((_S64 - rotation) & _S63))


@njit(**_COMPILE)
def random_double(bitgen):
    """``Generator.random()``: uniform in ``[0, 1)`` from the top 53 bits of a 64-bit draw
    (numpy's ``pcg64_next_double``)."""
    return np.float64(next_uint64(bitgen) >> _S11) * _DOUBLE_UNIT


@njit(**_COMPILE)
def next_uint32(bitgen):
    """PCG64's next 32-bit draw: the low half of a new 64-bit draw, whose high half serves
    the following 32-bit draw."""
    if bitgen[4] != _U0:
        bitgen[4] = _U0
        return bitgen[5]
    value = next_uint64(bitgen)
    bitgen[4] = _U1
    bitgen[5] = value >> _S32
    return value & _MASK32


@njit(**_COMPILE)
def _lemire_uint32(bitgen, rng):
    """Uniform in ``[0, rng]`` for ``rng < 2**32 - 1`` (buffered_bounded_lemire_uint32)."""
    rng_excl = rng + _U1
    m = next_uint32(bitgen) * rng_excl
    leftover = m & _MASK32
    if leftover < rng_excl:
        threshold = (_MASK32 - rng) % rng_excl
        while leftover < threshold:
            m = next_uint32(bitgen) * rng_excl
            leftover = m & _MASK32
    return m >> _S32


@njit(**_COMPILE)
def _lemire_uint64(bitgen, rng):
    """Uniform in ``[0, rng]`` for ``2**32 <= rng < 2**64 - 1`` (bounded_lemire_uint64)."""
    rng_excl = rng + _U1
    x = next_uint64(bitgen)
    leftover = x * rng_excl
    if leftover < rng_excl:
        threshold = (_MAX64 - rng) % rng_excl
        while leftover < threshold:
            x = next_uint64(bitgen)
            leftover = x * rng_excl
    return _mul_high(x, rng_excl)


@njit(**_COMPILE)
def bounded_uint64(bitgen, off, rng):
    """``off`` plus a uniform integer in ``[0, rng]`` (uint64, wrapping), as numpy's
    ``random_bounded_uint64`` without masking: no draw at all when ``rng`` is 0."""
    off, rng = np.uint64(off), np.uint64(rng)
    if rng == _U0:
        return off
    if rng <= _MASK32:
        if rng == _MASK32:
            return off + next_uint32(bitgen)
        return off + _lemire_uint32(bitgen, rng)
    if rng == _MAX64:
        return off + next_uint64(bitgen)
    return off + _lemire_uint64(bitgen, rng)


@njit(**_COMPILE)
def integers(bitgen, low, high):
    """``Generator.integers(low, high)`` for int64 scalars: uniform in ``[low, high)``."""
    if low >= high:
        raise ValueError("integers: low >= high")
    span = np.uint64(high - 1 - low)                  # wraps like numpy's <uint64_t>(high - low)
    return np.int64(bounded_uint64(bitgen, np.uint64(low), span))


@njit(**_COMPILE)
def random_interval(bitgen, max_value):
    """Uniform in ``[0, max_value]`` by masked rejection (numpy's ``random_interval``, the
    draw of ``Generator.shuffle``)."""
    max_value = np.uint64(max_value)
    if max_value == _U0:
        return _U0
    mask = max_value
    mask |= mask >> _S1
    mask |= mask >> _S2
    mask |= mask >> _S4
    mask |= mask >> _S8
    mask |= mask >> _S16
    mask |= mask >> _S32
    if max_value <= _MASK32:
        value = next_uint32(bitgen) & mask
        while value > max_value:
            value = next_uint32(bitgen) & mask
    else:
        value = next_uint64(bitgen) & mask
        while value > max_value:
            value = next_uint64(bitgen) & mask
    return value


@njit(**_COMPILE)
def shuffle(bitgen, values):
    """``Generator.shuffle`` of a 1-d array, in place."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = random_interval(bitgen, i)
        values[i], values[j] = values[j], values[i]


@njit(**_COMPILE)
def permutation(bitgen, out):
    """``Generator.permutation(n)`` into ``out`` (length ``n``): a shuffled ``arange(n)``."""
    for i in range(out.shape[0]):
        out[i] = i
    shuffle(bitgen, out)


@njit(**_COMPILE)
def _shuffle_int(bitgen, n, first, values):
    """choice's shuffle: Fisher-Yates over ``values[first - 1:n]`` with Lemire draws."""
    for i in range(n - 1, first - 1, -1):
        j = bounded_uint64(bitgen, 0, i)
        values[i], values[j] = values[j], values[i]


@njit(**_COMPILE)
def choice_without_replacement(bitgen, pop_size, size, out, scratch):
    """Write into ``out[:size]`` the indices ``Generator.choice(a, size, replace=False)``
    takes from a population of ``pop_size`` (``a[out[:size]]`` is its result), in numpy's
    order. ``scratch``: an int64 array of at least ``pop_size`` entries to work in."""
    if size > pop_size or size < 0:
        raise ValueError("choice: size must be in [0, pop_size] without replacement")
    if pop_size > _TAIL_SHUFFLE_POPULATION and size > pop_size // 50:
        for i in range(pop_size):
            scratch[i] = i
        _shuffle_int(bitgen, pop_size, max(pop_size - size, 1), scratch)
        for i in range(size):
            out[i] = scratch[pop_size - size + i]
        return
    for i in range(pop_size):                         # numpy's hash set, as membership flags
        scratch[i] = 0
    for j in range(pop_size - size, pop_size):
        value = np.int64(bounded_uint64(bitgen, 0, j))
        if scratch[value] == 0:
            scratch[value] = 1
            out[j - pop_size + size] = value
        else:
            scratch[j] = 1
            out[j - pop_size + size] = j
    _shuffle_int(bitgen, size, 1, out)
