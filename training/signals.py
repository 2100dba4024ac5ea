"""Signals during training: SIGTERM stops a run like Ctrl-C, and saves are never cut in half."""

from __future__ import annotations

import signal
from contextlib import contextmanager


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextmanager
def interrupts_as_keyboard():
    """Inside the block SIGTERM raises ``KeyboardInterrupt`` (what Ctrl-C raises), so one
    handler saves a run however it is stopped. Only the main thread can set handlers;
    elsewhere the block changes nothing."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
