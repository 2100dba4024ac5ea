"""Writing single entries of small numpy arrays from Python, fast.

Setting one element of a numpy array from Python costs a few hundred nanoseconds (index
parsing, a scalar conversion); the same write through a flat ``memoryview`` of the array's
buffer costs a quarter of that. Rules engines that keep observation tables up to date entry
by entry write through such a view. A view pins its array's buffer and cannot be pickled:
states drop their views in ``__getstate__`` and rebuild them on load and on clone.
"""

from __future__ import annotations

import numpy as np


def flat_view(array: np.ndarray) -> memoryview:
    """A writable 1-D ``memoryview`` over the C-contiguous ``array`` (index = flat index)."""
    if not array.flags.c_contiguous:
        raise ValueError("flat_view needs a C-contiguous array")
    return memoryview(array).cast("B").cast(array.dtype.char)


class KeepsViews:
    """Mixin for states that keep views of their own arrays (``flat_view``s, reshapes):
    pickling and deepcopy leave the views out, loading rebuilds them with ``_views()``,
    which subclasses define (and call from ``__init__`` and ``clone``). Works for states
    with ``__slots__`` (every slot set, as :class:`~sky_envs.core.state.GameState` asks) and
    for states with a ``__dict__``."""

    __slots__ = ()

    #: the attributes ``_views`` sets
    _view_names: tuple[str, ...] = ()

    def _views(self) -> None:
        raise NotImplementedError

    def __getstate__(self) -> dict:
        names = [*getattr(self, "_slot_names", ()), *getattr(self, "__dict__", ())]
        return {name: getattr(self, name) for name in names
                if name not in self._view_names and hasattr(self, name)}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._views()
