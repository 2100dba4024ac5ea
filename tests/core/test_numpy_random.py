"""The compiled port of numpy's seeded draws against numpy itself: seeding, raw draws with
numpy's 32-bit buffering, uniform doubles, bounded integers across the 32/64-bit boundaries, choice without
replacement (both of numpy's algorithms), shuffle and permutation; after each, the two
generators must also be in the same state (so that later draws agree too)."""

import numpy as np
import pytest

from sky_envs.core import numpy_random as nr

EDGE_SEEDS = [0, 1, 2, 255, 12345, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**40 + 7, 2**62, 2**63 - 1]
SEEDS = EDGE_SEEDS + np.random.default_rng(2024).integers(0, 2**63 - 1, size=40).tolist()
SPANS = [1, 2, 3, 5, 7, 10, 36, 100, 1000, 2**16 + 1, 2**31, 2**31 + 1, 2**32 - 2, 2**32 - 1, 2**32,
         2**32 + 1, 2**33 + 3, 2**40, 2**53 + 5, 2**62 + 1, 2**63 - 1]


def choice(bitgen, pop_size, size):
    out = np.zeros(size, dtype=np.int64)
    nr.choice_without_replacement(bitgen, pop_size, size, out, np.zeros(pop_size, dtype=np.int64))
    return out


def seeded(seed):
    bitgen = nr.new_bitgen()
    nr.seed_default_rng(bitgen, seed)
    return bitgen, np.random.default_rng(seed)


def assert_same_state(bitgen, rng):
    state = rng.bit_generator.state
    assert (int(bitgen[0]) << 64 | int(bitgen[1])) == state["state"]["state"]
    assert (int(bitgen[2]) << 64 | int(bitgen[3])) == state["state"]["inc"]
    assert int(bitgen[4]) == state["has_uint32"]
    if state["has_uint32"]:
        assert int(bitgen[5]) == state["uinteger"]


@pytest.mark.parametrize("seed", SEEDS)
def test_seeding_builds_the_pcg64_state_of_default_rng(seed):
    bitgen, rng = seeded(seed)
    assert_same_state(bitgen, rng)


@pytest.mark.parametrize("seed", SEEDS[:20])
def test_raw_draws_interleave_like_numpy_with_its_32_bit_buffer(seed):
    bitgen, rng = seeded(seed)
    numpy_bitgen = rng.bit_generator
    next32 = numpy_bitgen.ctypes.next_uint32
    next64 = numpy_bitgen.ctypes.next_uint64
    pattern = np.random.default_rng(seed + 1).integers(0, 2, size=60)
    for wide in pattern:
        if wide:
            assert int(nr.next_uint64(bitgen)) == next64(numpy_bitgen.ctypes.state)
        else:
            assert int(nr.next_uint32(bitgen)) == next32(numpy_bitgen.ctypes.state)
    assert_same_state(bitgen, rng)


@pytest.mark.parametrize("span", SPANS)
def test_integers_match_for_ranges_across_the_32_and_64_bit_paths(span):
    for seed in SEEDS[:12]:
        bitgen, rng = seeded(seed)
        for low in (0, -3, 2**20, -(2**62)):
            high = low + span
            if high >= 2**63:
                continue
            ours = [int(nr.integers(bitgen, low, high)) for _ in range(12)]
            assert ours == [int(rng.integers(low, high)) for _ in range(12)], (seed, low, span)
        assert_same_state(bitgen, rng)


def test_integers_over_the_whole_int64_range_and_a_zero_span():
    for seed in SEEDS[:10]:
        bitgen, rng = seeded(seed)
        for _ in range(5):
            assert int(nr.integers(bitgen, -2**63, 2**63 - 1)) == int(rng.integers(-2**63, 2**63 - 1))
            # [-2**63, 2**63): the span is 2**64 - 1, a plain 64-bit draw
            whole = np.uint64(nr.bounded_uint64(bitgen, np.uint64(2**63), np.uint64(2**64 - 1))).view(np.int64)
            assert int(whole) == int(rng.integers(-2**63, 2**63))
            assert int(nr.integers(bitgen, 5, 6)) == int(rng.integers(5, 6)) == 5   # draws nothing
        assert_same_state(bitgen, rng)
    with pytest.raises(ValueError):
        nr.integers(nr.new_bitgen(), 3, 3)


@pytest.mark.parametrize("pop_size", [1, 2, 3, 7, 18, 36, 64, 100, 257, 4096])
def test_choice_without_replacement_takes_floyds_sample_then_shuffles_it(pop_size):
    population = np.arange(pop_size) * 3 + 1   # an array like np.flatnonzero(cells)
    sizes = sorted({0, 1, pop_size // 3, pop_size // 2, pop_size - 1, pop_size} - {-1})
    for seed in SEEDS[:8]:
        bitgen, rng = seeded(seed)
        for size in sizes:
            ours = population[choice(bitgen, pop_size, size)]
            assert np.array_equal(ours, rng.choice(population, size=size, replace=False)), (seed, size)
            assert int(nr.integers(bitgen, 0, 1000)) == int(rng.integers(0, 1000))
        assert_same_state(bitgen, rng)


@pytest.mark.parametrize("pop_size, size", [(10001, 201), (12000, 12000), (20000, 401), (20000, 400)])
def test_choice_without_replacement_of_large_populations(pop_size, size):
    """Above 10,000 numpy shuffles the tail of the whole population instead (when the
    sample exceeds 1/50 of it; (20000, 400) stays with Floyd)."""
    for seed in SEEDS[:2]:
        bitgen, rng = seeded(seed)
        ours = choice(bitgen, pop_size, size)
        assert np.array_equal(ours, rng.choice(pop_size, size=size, replace=False))
        assert_same_state(bitgen, rng)


def test_choice_refuses_a_sample_larger_than_the_population():
    with pytest.raises(ValueError):
        choice(nr.new_bitgen(), 3, 4)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 17, 100, 1000])
def test_permutation_and_shuffle(n):
    for seed in SEEDS[:10]:
        bitgen, rng = seeded(seed)
        permutation = np.full(n, -1, dtype=np.int64)
        nr.permutation(bitgen, permutation)
        assert np.array_equal(permutation, rng.permutation(n))
        values = np.arange(n) * 5
        expected = values.copy()
        nr.shuffle(bitgen, values)
        rng.shuffle(expected)
        assert np.array_equal(values, expected)
        assert_same_state(bitgen, rng)


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_random_doubles_and_generator_words_round_trip(seed):
    bitgen, rng = seeded(seed)
    rng.integers(0, 7)   # a buffered 32-bit half left over: random() must not use it, nor lose it
    nr.integers(bitgen, 0, 7)
    assert [nr.random_double(bitgen) for _ in range(25)] == rng.random(25).tolist()
    assert_same_state(bitgen, rng)
    words = nr.generator_words(rng)
    assert nr.generator_state(words) == rng.bit_generator.state
    assert nr.generator(words).random(3).tolist() == rng.random(3).tolist()
    with pytest.raises(ValueError, match="the agent's generator is MT19937"):
        nr.generator_words(np.random.Generator(np.random.MT19937(seed)))
