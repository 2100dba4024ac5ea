"""The hot-path helpers in core: shared read-only masks, flat views, lazily copied rngs,
slot copies."""

import numpy as np
import pytest

from sky_envs.core import masks
from sky_envs.core.buffers import KeepsViews, flat_view
from sky_envs.core.state import GameState, LazilyCopiedRng


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


class _Base(GameState):
    __slots__ = ("game", "current_player", "items")

    def __init__(self):
        self.game, self.current_player, self.items = "g", 0, [1, 2]


class _Child(_Base):
    __slots__ = ("extra",)

    def __init__(self):
        super().__init__()
        self.extra = "x"


class _WithDict(_Base):   # no __slots__: instances have a __dict__
    pass


for _cls in (_Base, _Child, _WithDict):   # the abstract methods do not matter here
    _cls.__abstractmethods__ = frozenset()


def test_slotted_states_get_a_shallow_copy_of_every_slot_and_others_do_not():
    assert _Child._slot_names == ("game", "current_player", "items", "extra")
    child = _Child()
    twin = child._shallow_copy()
    assert type(twin) is _Child and twin is not child
    assert [getattr(twin, n) for n in _Child._slot_names] == ["g", 0, [1, 2], "x"]
    assert twin.items is child.items                      # shallow: clone() copies what moves
    assert _Base()._shallow_copy().current_player == 0
    assert _WithDict._slot_names == _Base._slot_names     # its slots, though it has a __dict__ too
    with pytest.raises(TypeError, match="have a __dict__"):
        _WithDict()._shallow_copy()


class _Viewed(KeepsViews, _Base):
    __slots__ = ("cells", "_view")
    _view_names = ("_view",)

    def __init__(self):
        super().__init__()
        self.cells = np.arange(4, dtype=np.float32)
        self._views()

    def _views(self):
        self._view = flat_view(self.cells)


class _ViewedWithDict(_Viewed):   # no __slots__: slots and a __dict__
    def __init__(self):
        super().__init__()
        self.note = "kept"


_Viewed.__abstractmethods__ = _ViewedWithDict.__abstractmethods__ = frozenset()


@pytest.mark.parametrize("cls", [_Viewed, _ViewedWithDict])
def test_states_with_views_pickle_every_attribute_and_rebuild_their_views(cls):
    import pickle

    state = cls()
    again = pickle.loads(pickle.dumps(state))
    assert [getattr(again, n) for n in ("game", "current_player", "items")] == ["g", 0, [1, 2]]
    again._view[1] = 9                                   # the rebuilt view writes into the copy's array
    assert again.cells.tolist() == [0, 9, 2, 3] and state.cells.tolist() == [0, 1, 2, 3]
    if cls is _ViewedWithDict:
        assert again.note == "kept"
