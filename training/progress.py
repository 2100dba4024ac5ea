"""The training loop's rhythm: learner steps/s per rollout-and-update cycle, the progress
bar, the work done between cycles (checkpoints, quick evaluations), and what holds for the
length of a rollout only (:class:`RolloutRegion`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from stable_baselines3.common.callbacks import BaseCallback

from .signals import deferred_interrupts


class RolloutCycles(BaseCallback):
    """Times each cycle of one rollout plus the PPO update that trains on it.

    ``learner steps/s`` = the rollout's learner decisions / the cycle's wall time; it goes to
    TensorBoard as ``time/learner_steps_per_s`` and onto the progress bar. ``between(model)``
    runs at every cycle boundary (the model has just been updated on every step counted in
    ``model.num_timesteps``) and once at the end; its time is outside the timed cycles, so
    checkpoints and quick evaluations do not lower the figure.

    Ctrl-C and SIGTERM are held back (:func:`~training.signals.deferred_interrupts`) from the
    end of a rollout until ``between`` has run after its update: an interrupt then stops the
    run during a rollout or at a cycle boundary, never half-way through an update.
    """

    def __init__(self, total: int, between: Callable[[object], None], progress: bool = True):
        super().__init__()
        self.total = total
        self.between = between
        self.progress = progress
        self._held: contextlib.ExitStack | None = None
        self.rate: float | None = None
        self._cycle_start: float | None = None
        self._cycle_steps = 0
        self._bar = None

    def _on_training_start(self) -> None:
        if self.progress:
            from tqdm import tqdm

            # tqdm's own rate would average in checkpoints and quick evaluations: show ours only
            self._bar = tqdm(total=self.total, initial=self.model.num_timesteps, unit="step", dynamic_ncols=True,
                             mininterval=0.5, desc="self-play",
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]")

    def _close_cycle(self) -> None:
        if self._cycle_start is None:
            return
        steps = self.model.num_timesteps - self._cycle_steps
        self.rate = steps / max(time.perf_counter() - self._cycle_start, 1e-9)
        self.logger.record("time/learner_steps_per_s", self.rate)
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.rate:,.0f} learner steps/s", refresh=False)
        self._cycle_start = None

    def _on_rollout_end(self) -> None:
        if self._held is None:
            self._held = contextlib.ExitStack()
            self._held.enter_context(deferred_interrupts())

    def _release(self) -> None:
        """Stop holding signals back; one that arrived meanwhile is raised here."""
        if self._held is not None:
            held, self._held = self._held, None
            held.close()

    def _on_rollout_start(self) -> None:
        self._close_cycle()
        self.between(self.model)
        self._release()
        self._cycle_start, self._cycle_steps = time.perf_counter(), self.model.num_timesteps

    def _on_step(self) -> bool:
        if self._bar is not None:  # the last rollout may run past the total: the bar stops at it
            self._bar.update(max(0, min(self.training_env.num_envs, self.total - self._bar.n)))
        return True

    def _on_training_end(self) -> None:
        self._close_cycle()
        self.between(self.model)
        self.logger.dump(self.model.num_timesteps)
        self._close_bar()
        self._release()

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def close(self) -> None:
        """Close the progress bar and let signals through again (when training stops early:
        the run is stopping anyway, so a signal held back meanwhile is dropped)."""
        self._close_bar()
        try:
            self._release()
        except KeyboardInterrupt:
            pass


class RolloutRegion(BaseCallback):
    """Holds ``region()`` (a context manager) open from the start of each rollout to its end,
    so never across a PPO update: the self-play learner keeps its policy's weight casts there
    (:meth:`~sky_envs.agents.legal_actions.LegalActionsPolicy.casts_kept`). :meth:`close`
    leaves a region that an interrupted rollout left open."""

    def __init__(self, region: Callable[[], contextlib.AbstractContextManager]):
        super().__init__()
        self.region = region
        self._open: contextlib.ExitStack | None = None

    def _on_rollout_start(self) -> None:
        self.close()
        self._open = contextlib.ExitStack()
        self._open.enter_context(self.region())

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.close()

    def close(self) -> None:
        if self._open is not None:
            region, self._open = self._open, None
            region.close()
