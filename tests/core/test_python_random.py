"""The compiled port of Python's ``random.Random(seed).random()`` against Python itself:
every seed size the playouts use (one or two 32-bit words), and enough draws to pass through
several regenerations of MT19937's 624 words."""

import random

import numpy as np
import pytest

from sky_envs.core.python_random import new_python_random, python_random, seed_python_random

EDGE_SEEDS = [0, 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**40 + 7, 2**62 - 1, 2**62, 2**63 - 1]
SEEDS = EDGE_SEEDS + np.random.default_rng(7).integers(0, 1 << 62, size=30).tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_the_draws_are_those_of_random_Random(seed):
    generator = new_python_random()
    seed_python_random(generator, seed)
    reference = random.Random(seed)
    assert [python_random(generator) for _ in range(1500)] == [reference.random() for _ in range(1500)]


def test_seeding_again_starts_the_same_stream_over():
    generator = new_python_random()
    seed_python_random(generator, 99)
    first = [python_random(generator) for _ in range(700)]
    seed_python_random(generator, 99)
    assert [python_random(generator) for _ in range(700)] == first
