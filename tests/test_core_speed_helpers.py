"""The hot-path helpers in core: shared read-only masks, flat views, lazily copied rngs."""

import numpy as np
import pytest

from sky_envs.core import masks
from sky_envs.core.buffers import flat_view
from sky_envs.core.state import LazilyCopiedRng


def test_masks_from_actions_are_shared_read_only_and_exact():
    mask = masks.mask_from_actions([5, 0, 9], 12)
    assert mask.dtype == bool and mask.shape == (12,) and np.flatnonzero(mask).tolist() == [0, 5, 9]
    assert masks.mask_from_actions((5, 0, 9), 12) is mask      # the same set: the same array
    with pytest.raises(ValueError):
        mask.flags.writeable = True
    assert not masks.mask_from_actions([], 12).any()


def test_mask_caches_stop_growing_at_their_budget(monkeypatch):
    monkeypatch.setattr(masks, "CACHE_BYTES", 3 * (40 + 256))
    monkeypatch.setattr(masks, "_BY_ACTIONS", {})
    built = [masks.mask_from_actions([a], 40) for a in range(6)]
    assert len(masks._BY_ACTIONS[40]) == 3
    assert masks.mask_from_actions([0], 40) is built[0]           # kept
    again = masks.mask_from_actions([5], 40)                      # built again, not kept
    assert again is not built[5] and np.array_equal(again, built[5])


def test_flat_view_writes_into_the_array():
    a = np.zeros((2, 3, 4), dtype=np.float32)
    view = flat_view(a)
    view[1 * 12 + 2 * 4 + 3] = 7
    view[0:4] = memoryview(np.arange(4, dtype=np.float32))
    assert a[1, 2, 3] == 7 and a[0, 0].tolist() == [0, 1, 2, 3] and a.sum() == 13
    with pytest.raises(ValueError, match="C-contiguous"):
        flat_view(a[:, ::2])


class _Holder(LazilyCopiedRng):
    def __init__(self, rng):
        self.rng = rng

    def clone(self):
        twin = object.__new__(_Holder)
        twin.__dict__.update(self.__dict__)
        self._copy_rng_to(twin)
        return twin


def test_clones_get_the_stream_as_of_the_clone_and_their_own_generator():
    original = _Holder(np.random.default_rng(3))
    original.rng.integers(100)
    twin = original.clone()
    grandchild = twin.clone()                     # cloned before the twin built its generator
    expected = np.random.default_rng(3)
    expected.integers(100)
    stream = expected.integers(1 << 30, size=4).tolist()
    assert original.rng.integers(1 << 30, size=4).tolist() == stream
    assert twin.rng.integers(1 << 30, size=4).tolist() == stream
    assert grandchild.rng.integers(1 << 30, size=4).tolist() == stream
    assert twin.rng is not original.rng and grandchild.rng is not twin.rng
