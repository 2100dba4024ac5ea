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


@contextmanager
def interrupts_as_keyboard():
    """Inside the block SIGINT and SIGTERM raise :class:`TrainingInterrupted` (a
    ``KeyboardInterrupt``, what Ctrl-C raises), so one handler saves a run however it is
    stopped. Only the main thread can set handlers; elsewhere the block changes nothing."""
    try:
        previous = {sig: signal.signal(sig, _raise_interrupted) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def deferred_interrupts():
    """SIGINT and SIGTERM that arrive inside the block are delivered when it ends, so the
    files written inside it are all old or all new."""
    received: list[int] = []
    try:
        previous = {sig: signal.signal(sig, lambda signum, frame: received.append(signum))
                    for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if received:
            signal.raise_signal(received[0])
