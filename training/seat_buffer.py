"""A rollout buffer whose advantages follow each seat's own decisions.

When the learner plays several seats of one game in one collector slot (the collector's
``learn_from_latest``: both sides of a self-play game are training data), consecutive
transitions of the slot belong to different seats, each seeing the game from its own side.
Stable-Baselines3's GAE chains every transition to the next one *of the slot*; here each
transition is chained to the next decision *of the same seat in the same game*, and a
game's end gives every learner seat its own return.

This is SB3's supported extension point (``rollout_buffer_class``): the learner stays
sb3-contrib ``MaskablePPO``, unmodified. With one learner seat per slot the advantages are
exactly SB3's (tested). The buffer reads which seat made each decision from the collector
(:meth:`training.collector.GamesVecEnv.decision_record`), right after the step that
``add`` records, so it must be :meth:`attach`-ed to the collector the model steps.

A seat whose next decision falls beyond the end of the rollout has no value to bootstrap
from (the slot's last observation is another seat's): its last transition of the rollout
gets a zero advantage and its own value as the return, i.e. no learning signal, rather than
a wrong one. That is at most one transition per non-moving seat and slot per rollout.
"""

from __future__ import annotations

import numpy as np
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from stable_baselines3.common.buffers import RolloutBuffer

from sky_envs.agents.legal_actions import LegalActions

_UNKNOWN, _VALUE, _TERMINAL = 0, 1, 2


class PerSeatRolloutBuffer(MaskableRolloutBuffer):
    """``MaskableRolloutBuffer`` with per-seat GAE; see the module docstring."""

    collector = None
    #: hand each minibatch's legal actions as :class:`~sky_envs.agents.legal_actions.LegalActions`
    #: instead of its masks (for a policy that ``reads_legal_actions``)
    legal_lists = False

    def attach(self, collector, legal_lists: bool = False) -> None:
        """Read seats from ``collector`` (the VecEnv the model steps) from now on; with
        ``legal_lists``, minibatches carry their legal actions listed, not their masks: ``add``
        lists each step's masks and keeps none (a Scala rollout's are 32 MB), where each
        minibatch's masks (1,024 rows of 7,744) would be copied twice and scanned again, about
        12% of a Scala update."""
        self.collector, self.legal_lists = collector, legal_lists
        if legal_lists:
            self.__dict__.get("_kept", {}).pop("action_masks", None)
        self.reset()

    def reset(self) -> None:
        # MaskableRolloutBuffer.reset with the masks kept as bool, not float32: a rollout of
        # Scala's 7,744-entry masks is 32 MB instead of 127 MB, written afresh every rollout.
        # Observations and masks are laid out slot by slot in memory and seen step by step, as
        # SB3 writes them (``add``): its swap_and_flatten before the update is then a reshape
        # of the same memory instead of a copy of the whole rollout (Golden Rush's 4,096
        # observations of 2,574 numbers: about 5% of its training time). The same values.
        # Both arrays are kept from one rollout to the next (every step's observations and masks
        # are written by ``add``, which refuses a step without masks, before ``get`` reads
        # them): a fresh one's memory is handed out by the system page by page as it is first
        # written, and in this layout a rollout's first step writes into every page at once
        # (Scala's 32 MB of masks: 20-45 ms at each rollout's first ``add``).
        self.mask_dims = int(self.action_space.n)
        RolloutBuffer.reset(self)
        self.observations = self._step_major("observations", self.obs_shape, self.observation_space.dtype)
        if self.legal_lists:   # no masks kept (an empty array for SB3's reshaping of every array in ``get``)
            self.action_masks = np.zeros((self.buffer_size, self.n_envs, 0), dtype=bool)
            self._step_legal = [None] * self.buffer_size   # each step's (actions, counts), listed by ``add``
        else:
            self.action_masks = self._step_major("action_masks", (self.mask_dims,), bool)
        self._legal = None   # the rollout's legal actions listed (``legal_lists``), made at the first minibatch
        players = self.collector.num_players if self.collector is not None else 1
        self.movers = np.zeros((self.buffer_size, self.n_envs), dtype=np.int64)
        self.outcomes = np.full((self.buffer_size, self.n_envs, players), np.nan)

    def _step_major(self, name: str, item_shape: tuple, dtype) -> np.ndarray:
        """The buffer's array ``name`` laid out slot by slot, seen step by step; the same memory
        every rollout (its values are the last rollout's until ``add`` writes them)."""
        shape = (self.n_envs, self.buffer_size, *item_shape)
        kept = self.__dict__.setdefault("_kept", {})
        if name not in kept or kept[name].shape != shape or kept[name].dtype != dtype:
            kept[name] = np.zeros(shape, dtype=dtype)
        return kept[name].swapaxes(0, 1)

    def add(self, *args, **kwargs) -> None:
        if self.collector is None:
            raise RuntimeError("PerSeatRolloutBuffer.attach(collector) was not called: the buffer cannot tell "
                               "which seat made each decision")
        if kwargs.get("action_masks") is None:
            raise RuntimeError("PerSeatRolloutBuffer.add needs the step's action_masks (MaskablePPO passes them "
                               "unless use_masking=False, which the self-play learner never sets)")
        step = self.pos
        if self.legal_lists:
            listed = LegalActions.of_masks(kwargs.pop("action_masks"), self.n_envs)
            self._step_legal[step] = (listed.actions.numpy(), listed.counts.numpy())
        super().add(*args, **kwargs)
        self.movers[step], self.outcomes[step] = self.collector.decision_record()

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableRolloutBufferSamples:
        # MaskableRolloutBuffer's minibatch, but each array, a new one already (numpy's fancy
        # indexing), is read by torch where it lies instead of being copied again (SB3's
        # ``to_torch`` copies: Golden Rush's 1,024 observations of 2,574 numbers, about 4% of a
        # run); the masks as listed legal actions with ``legal_lists``
        data = (self.observations[batch_inds], self.actions[batch_inds], self.values[batch_inds].flatten(),
                self.log_probs[batch_inds].flatten(), self.advantages[batch_inds].flatten(),
                self.returns[batch_inds].flatten())
        tensors = [self.to_torch(array, copy=False) for array in data]
        if not self.legal_lists:
            return MaskableRolloutBufferSamples(
                *tensors, self.to_torch(self.action_masks[batch_inds].reshape(-1, self.mask_dims), copy=False))
        if self._legal is None:   # the steps' lists, one after the other: row ``step * n_envs + slot``
            counts = np.concatenate([counts for _, counts in self._step_legal])
            self._legal = (np.concatenate([actions for actions, _ in self._step_legal]), np.cumsum(counts) - counts,
                           counts)
        # the flattened rollout (``get``) is slot by slot: its row ``slot * buffer_size + step``
        slots, steps = np.divmod(batch_inds, self.buffer_size)
        return MaskableRolloutBufferSamples(*tensors, LegalActions.select(*self._legal, steps * self.n_envs + slots))

    def compute_returns_and_advantage(self, last_values, dones: np.ndarray) -> None:
        values, rewards = self.values, self.rewards
        steps, slots = values.shape
        players = self.outcomes.shape[2]
        ended = np.zeros((steps, slots), dtype=bool)  # the slot's game ended with this transition
        ended[:-1] = self.episode_starts[1:]
        ended[-1] = np.asarray(dones, dtype=bool)
        # what follows each (slot, seat)'s latest transition seen so far, walking back in time
        kind = np.full((slots, players), _UNKNOWN, dtype=np.int8)
        next_value = np.zeros((slots, players))
        next_advantage = np.zeros((slots, players))
        rows = np.arange(slots)
        now = self.collector.current_seats()
        kind[rows, now] = _VALUE
        next_value[rows, now] = last_values.clone().cpu().numpy().flatten()
        for t in reversed(range(steps)):
            over = np.flatnonzero(ended[t])
            if over.size:
                outcomes = self.outcomes[t, over]  # NaN where the game was cut at max_turns: nothing known
                kind[over] = np.where(np.isnan(outcomes), _UNKNOWN, _TERMINAL)
                next_value[over] = np.nan_to_num(outcomes)
                next_advantage[over] = 0.0
                # the mover's reward is SB3's: the return, or the bootstrapped value of a cut game
                kind[over, self.movers[t, over]] = _TERMINAL
                next_value[over, self.movers[t, over]] = rewards[t, over]
            seat = self.movers[t]
            follows, value, advantage = kind[rows, seat], next_value[rows, seat], next_advantage[rows, seat]
            continuing = rewards[t] + self.gamma * value - values[t] + self.gamma * self.gae_lambda * advantage
            self.advantages[t] = np.where(follows == _VALUE, continuing,
                                          np.where(follows == _TERMINAL, value - values[t], 0.0))
            kind[rows, seat] = _VALUE
            next_value[rows, seat] = values[t]
            next_advantage[rows, seat] = self.advantages[t]
        self.returns = self.advantages + self.values
