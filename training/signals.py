"""Signals during training: SIGTERM stops a run like Ctrl-C, and saves are never cut in half."""

from __future__ import annotations

import signal
from contextlib import contextmanager


class TrainingInterrupted(KeyboardInterrupt):
    """Training stopped by SIGINT (Ctrl-C) or SIGTERM; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signal.Signals(signum).name}")
        self.signum = signum


def _raise_interrupted(signum, frame):
    raise TrainingInterrupted(signum)


INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _handling_interrupts(handler):
    """Inside the block SIGINT and SIGTERM call ``handler``. Only the main thread can set
    handlers; elsewhere the block changes nothing."""
    try:
        previous = {sig: signal.signal(sig, handler) for sig in INTERRUPTS}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def open_autocast_regions() -> int:
    """How many ``torch.autocast`` regions are open in this thread (torch counts them, and
    clears its cache of cast weights when the count returns to 0; it only tells the count
    on a change, so this counts one more and one less)."""
    import torch

    count = torch.autocast_increment_nesting() - 1
    torch.autocast_decrement_nesting()
    return count


@contextmanager
def torch_modes_restored():
    """On leaving the block, torch's grad mode and CPU autocast state are what they were on
    entering it.

    A signal handler raises its exception wherever the main thread is, also inside
    ``torch.no_grad().__enter__`` after it turned gradients off (then no ``__exit__`` turns
    them on again) or inside ``torch.autocast``'s ``__enter__`` after it counted one more
    region (then its cache of weight casts is never cleared). Either outlives the
    interruption: the next run in the same process (a notebook, a resume, a test) computes
    losses without gradients ("element 0 of tensors does not require grad") or with stale
    casts of weights (measured in docs/notes/2026-12-06-interrupted-gradients-and-self-distillation.md)."""
    import torch   # here: the module is imported by commands that never load torch

    grad = torch.is_grad_enabled()
    autocast = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), torch.is_autocast_cache_enabled())
    nesting = open_autocast_regions()
    try:
        yield
    finally:
        torch.set_grad_enabled(grad)
        torch.set_autocast_enabled("cpu", autocast[0])
        torch.set_autocast_dtype("cpu", autocast[1])
        torch.set_autocast_cache_enabled(autocast[2])
        for _ in range(max(0, open_autocast_regions() - nesting)):
            if torch.autocast_decrement_nesting() == 0:
                torch.clear_autocast_cache()   # what leaving the outermost region does


@contextmanager
def interrupts_as_keyboard():
    """Inside the block SIGINT and SIGTERM raise :class:`TrainingInterrupted` (a
    ``KeyboardInterrupt``, what Ctrl-C raises), so one handler saves a run however it is
    stopped; whatever stops the block, torch's modes are left as they were
    (:func:`torch_modes_restored`)."""
    with torch_modes_restored(), _handling_interrupts(_raise_interrupted):
        yield


@contextmanager
def deferred_interrupts():
    """SIGINT and SIGTERM that arrive inside the block are delivered when it ends, so the
    files written inside it are all old or all new."""
    received: list[int] = []
    try:
        with _handling_interrupts(lambda signum, frame: received.append(signum)):
            yield
    finally:
        if received:
            signal.raise_signal(received[0])
