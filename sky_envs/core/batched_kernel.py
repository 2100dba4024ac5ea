"""What every one-entry-point kernel (:class:`~sky_envs.core.batched.KernelBatchedGames`) does
to a slot before it steps it, compiled once and inlined into each game's kernel."""

from __future__ import annotations

from numba import njit

from sky_envs.core.numpy_random import NO_REFCOUNT_COMPILE


@njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
def forget_last_end(i, rewards, terminated, truncated, final_player):
    """Slot ``i``'s game that ended at the last call is forgotten: only the slots a call ends
    hold rewards, an end flag and a final player (-1 elsewhere)."""
    if terminated[i] or truncated[i]:
        rewards[i, :] = 0.0
        terminated[i] = False
        truncated[i] = False
        final_player[i] = -1
