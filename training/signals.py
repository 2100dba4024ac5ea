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


@contextmanager
def interrupts_as_keyboard():
    """Inside the block SIGINT and SIGTERM raise :class:`TrainingInterrupted` (a
    ``KeyboardInterrupt``, what Ctrl-C raises), so one handler saves a run however it is
    stopped."""
    with _handling_interrupts(_raise_interrupted):
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
