"""PPO's action distribution over each position's legal actions only, for wide action spaces.

sb3-contrib's ``MaskableActorCriticPolicy`` scores every action of the space, then masks
the illegal ones (``MaskableCategorical``): each forward pass of PPO, sampling, log-probability
and entropy work on ``num_actions`` logits per position. In Scala that is 7,744 logits, of
which about 60 are legal, and those full-width tensors (the dense head's matrix product and
its gradient, the normalisation, the sampling) took most of a self-play run's time.

:class:`LegalActionsPolicy` is the same network with the same weights (its ``action_net`` is
SB3's ``nn.Linear``, or, given the game's ``possible_actions``, one that trains only their
rows: :class:`~sky_envs.agents.possible_rows.PossibleRowsLinear`; checkpoints load either
way), and the same distribution: where PPO
passes action masks and the space has at least :data:`SPARSE_FROM` actions, it scores only
the legal actions (:meth:`LegalActionsPolicy.action_scores`: ``action_net``'s rows for the
actions legal somewhere in the batch; the pairs head of
:class:`~sky_envs.agents.features.CellPairsPolicy` scores its pairs of cells), and
:class:`LegalCategorical` samples, scores and measures entropy over those, padded to the
widest row of the batch. Masked out, an action has probability 0 either way, so the values
agree with ``MaskableCategorical``'s up to rounding (``tests/agents/test_legal_actions.py``
checks log-probabilities, entropies, greedy actions and gradients). In narrower spaces the
distribution is sb3-contrib's masked categorical made with its masks at once
(:class:`MaskedCategorical`: the same numbers bit for bit, with less work); calls without
masks are SB3's own code. Both draw their samples by inverse CDF (:func:`sample_rows`)
rather than with ``torch.multinomial``, which cost up to a twentieth of a self-play run.

The trunk (features and the actor's and critic's layers) may run its matrix products in
bfloat16 (:attr:`LegalActionsPolicy.trunk_dtype`, set by training's ``train.precision``):
torch's autocast on the CPU, the weights, the heads, the distribution and the losses staying
float32. On a CPU with bfloat16 matrix units (AMX) the trunk's products and their gradients
then cost about a third. In a wide space the dense head's product over the legal rows (about
half of a Scala update's products) runs in that dtype too, its scores handed on as float32.

Both normalise their logits with :func:`logsumexp`, torch's ``logsumexp`` to the last bit,
forward and backward. Torch's own computes ``exp`` of every entry, and torch's vectorised
``exp`` falls back to a scalar loop for arguments below about -87 (seen with its AVX-512 and
AVX2 kernels on the 2-core machine): a masked logit (-1e8) costs 10 to 30 times an ordinary
one, so with most actions masked the
normalisation and its gradient were the largest items of a PPO update after the matrix
products (``benchmarks/training_throughput.py``).

The agents, search and expert iteration do not go through here: they read the whole logits
row (:func:`sky_envs.agents.network.forward`) and mask it themselves.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch.autograd.function import once_differentiable
from torch.distributions import Categorical, Distribution

from sky_envs.agents.possible_rows import PossibleRowsLinear, dense_head_rows

#: the narrowest action space whose PPO distribution is built over the legal actions only
#: (narrower ones gain nothing: every game but Scala has at most a few hundred actions)
SPARSE_FROM = 1024
#: the dense head's product over the legal rows takes a multiple of this many rows
#: (:func:`_round_up_rows`)
ROWS_MULTIPLE = 64
#: the logit of a padding entry (sb3-contrib's masked logit): probability 0 after normalising
PADDING_LOGIT = -1e8
#: at or below this, ``exp`` of a float32 is exactly 0 (the smallest subnormal is ``exp(-103.3)``)
EXP_IS_ZERO_BELOW = -120.0


def _exp_of_differences(differences: torch.Tensor) -> torch.Tensor:
    """``differences.exp()``, in place: entries at or below :data:`EXP_IS_ZERO_BELOW`, whose
    exponential is exactly 0, are set to 0 without going through ``exp``."""
    zero = differences <= EXP_IS_ZERO_BELOW
    return differences.masked_fill_(zero, 0.0).exp_().masked_fill_(zero, 0.0)


class _LogSumExp(torch.autograd.Function):
    """Torch's ``logsumexp`` over the last dimension (keeping it), step for step
    (``amax``, ``sum(exp(x - max))``, ``log``, ``+ max``; gradient ``grad * exp(x - result)``),
    with :func:`_exp_of_differences` for ``exp``."""

    @staticmethod
    def forward(ctx, logits: torch.Tensor) -> torch.Tensor:
        maxes = torch.amax(logits, dim=-1, keepdim=True)
        maxes.masked_fill_(maxes.abs() == float("inf"), 0)
        result = _exp_of_differences(logits - maxes).sum(dim=-1, keepdim=True).log_().add_(maxes)
        ctx.save_for_backward(logits, result)
        return result

    @staticmethod
    @once_differentiable
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        logits, result = ctx.saved_tensors
        return grad * _exp_of_differences(logits - result)


class _Rows(torch.autograd.Function):
    """``matrix[rows]`` for distinct ``rows``, whose gradient is written row by row
    (``index_copy_``) into zeros instead of added (``index_put_`` with ``accumulate``, what
    indexing's gradient does in case rows repeat): about 6x faster for the dense head's rows,
    the same numbers, since each row is written once."""

    @staticmethod
    def forward(ctx, matrix: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(rows)
        ctx.shape = matrix.shape
        return matrix.index_select(0, rows)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad: torch.Tensor):
        (rows,) = ctx.saved_tensors
        return grad.new_zeros(ctx.shape).index_copy_(0, rows, grad), None


def _round_up_rows(used: torch.Tensor) -> None:
    """Mark the first unmarked entries of ``used`` (a bool vector) until a multiple of
    :data:`ROWS_MULTIPLE` are marked (or all), for a dense head's product in bfloat16: it is
    then of one of a few widths. oneDNN, which runs torch's bfloat16 products on the CPU,
    compiles a kernel for every new shape it meets (about 7 ms for Scala's 1,024 x 256 x
    1,900, forward, and as much backward), and the number of actions legal somewhere in a
    batch changes from batch to batch. The extra rows' scores are never read (their gradient
    is zero); the scores are the same, and the backward product sums the same terms with
    zeros among them, so its roundings may differ. Float32 products (MKL) compile nothing
    per shape and are left as they are."""
    missing = -int(used.sum()) % ROWS_MULTIPLE
    if missing:
        used[(~used).nonzero().squeeze(1)[:missing]] = True


def logsumexp(logits: torch.Tensor) -> torch.Tensor:
    """``logits.logsumexp(dim=-1, keepdim=True)``, the same numbers and gradients bit for bit
    (``tests/agents/test_legal_actions.py``), fast where many entries lie far below their row's
    maximum (masked logits). Other dtypes than float32 take torch's own."""
    if logits.dtype != torch.float32 or logits.dim() < 1 or logits.numel() == 0:
        return logits.logsumexp(dim=-1, keepdim=True)
    return _LogSumExp.apply(logits)


def sample_rows(probs: torch.Tensor) -> torch.Tensor:
    """One index per row of ``probs`` ``(B, W)``, index ``j`` drawn with probability
    ``probs[i, j]`` (over the row's sum), by inverse CDF: the first index whose running total
    (float64) exceeds ``u`` times the row's total, ``u`` uniform in [0, 1) from torch's
    generator, kept below the total. An entry of probability 0 adds nothing to the running
    total, so it is never the first to exceed it. What ``torch.multinomial(probs, 1)``, which
    ``Categorical.sample`` calls, draws, with other random numbers, about 25 times faster on
    the CPU (128 rows of 600: 60 µs against 1.5 ms)."""
    totals = probs.double().cumsum(dim=1)
    last = totals[:, -1:]
    drawn = torch.minimum(torch.rand(last.shape, dtype=torch.float64, device=probs.device) * last,
                          torch.nextafter(last, torch.zeros_like(last)))
    return torch.searchsorted(totals, drawn, right=True).squeeze(1)


def normalise(distribution: Categorical, logits: torch.Tensor) -> None:
    """Make ``distribution`` what ``Categorical.__init__(distribution, logits=logits,
    validate_args=False)`` makes, normalising with :func:`logsumexp`."""
    distribution.__dict__.pop("probs", None)   # a cached ``probs`` belongs to older logits
    distribution.logits = logits - logsumexp(logits)
    distribution._param = distribution.logits
    distribution._num_events = logits.size(-1)
    batch_shape = logits.size()[:-1] if logits.dim() > 1 else torch.Size()
    Distribution.__init__(distribution, batch_shape, validate_args=False)


class LegalActions(NamedTuple):
    """The legal actions of a batch of positions, listed: ``actions`` holds row 0's legal
    actions (ascending), then row 1's, ...; ``rows`` each entry's row; ``counts`` each row's
    number of legal actions (int64 tensors). What ``masks.nonzero(as_tuple=True)`` and a
    count per row give, without the full-width masks: a rollout buffer may hand a minibatch's
    legal actions this way instead of its masks (:class:`training.seat_buffer.PerSeatRolloutBuffer`
    does for Scala's 7,744 actions), and :meth:`LegalActionsPolicy.legal_distribution` takes
    either."""

    rows: torch.Tensor
    actions: torch.Tensor
    counts: torch.Tensor

    @classmethod
    def of_masks(cls, masks, num_rows: int) -> LegalActions:
        """The legal actions of ``masks`` (an array or tensor holding ``num_rows`` rows of
        action masks; true or nonzero: legal). numpy's ``flatnonzero`` over a bool array is
        about 1.7x torch's ``nonzero`` here."""
        if isinstance(masks, torch.Tensor):
            masks = masks.detach().cpu().numpy()
        masks = np.asarray(masks).reshape(num_rows, -1)
        width = masks.shape[1]
        flat = np.flatnonzero(masks if masks.dtype == bool else masks.astype(bool))
        rows = flat // width
        return cls(torch.from_numpy(rows), torch.from_numpy(flat - rows * width),
                   torch.from_numpy(np.bincount(rows, minlength=num_rows)))

    @classmethod
    def select(cls, actions: np.ndarray, starts: np.ndarray, counts: np.ndarray, picked: np.ndarray) -> LegalActions:
        """The legal actions of rows ``picked`` (in that order) of a list held as numpy arrays:
        row ``r``'s are ``actions[starts[r]:starts[r] + counts[r]]``."""
        picked_counts = counts[picked]
        firsts = np.cumsum(picked_counts) - picked_counts          # each picked row's first entry here
        entries = np.arange(int(picked_counts.sum())) + np.repeat(starts[picked] - firsts, picked_counts)
        return cls(torch.from_numpy(np.repeat(np.arange(len(picked)), picked_counts)),
                   torch.from_numpy(actions[entries]), torch.from_numpy(picked_counts))


class LegalCategorical:
    """A categorical distribution over each row's legal actions: ``logits`` ``(B, W)``, row
    ``i``'s first ``counts[i]`` entries scoring the actions ``legal[i, :counts[i]]``
    (ascending), the rest padding. Offers what SB3's PPO asks of a distribution, with
    actions numbered as in the whole action space."""

    def __init__(self, logits: torch.Tensor, legal: torch.Tensor, valid: torch.Tensor):
        self.distribution = Categorical.__new__(Categorical)
        normalise(self.distribution, logits)
        self.legal, self.valid = legal, valid

    def _entries(self, actions: torch.Tensor) -> torch.Tensor:
        """Each row's entry holding ``actions[i]``; ``ValueError`` where it is not legal."""
        hits = (self.legal == actions.reshape(-1, 1).long()) & self.valid
        found = hits.any(dim=1)
        if not bool(found.all()):
            row = int(torch.argmin(found.int()))
            raise ValueError(f"row {row}: action {int(actions.reshape(-1)[row])} is not among its legal actions")
        return hits.int().argmax(dim=1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.distribution.log_prob(self._entries(actions))

    def entropy(self) -> torch.Tensor:
        p_log_p = self.distribution.logits * self.distribution.probs
        return -torch.where(self.valid, p_log_p, torch.zeros_like(p_log_p)).sum(dim=1)

    def sample(self) -> torch.Tensor:
        return self.legal.gather(1, sample_rows(self.distribution.probs).unsqueeze(1)).squeeze(1)

    def mode(self) -> torch.Tensor:
        """The most likely action of each row (the lowest-numbered one among ties, as a full-width argmax)."""
        return self.legal.gather(1, self.distribution.probs.argmax(dim=1, keepdim=True)).squeeze(1)

    def get_actions(self, deterministic: bool = False) -> torch.Tensor:
        return self.mode() if deterministic else self.sample()


class MaskedCategorical(MaskableCategorical):
    """sb3-contrib's ``MaskableCategorical`` made with its masks at once: the same logits,
    probabilities and entropies, bit for bit, and samples from the same probabilities
    (:func:`sample_rows`, not ``torch.multinomial``). sb3-contrib normalises the logits
    three times (at construction, again when it clears the masks it has not got yet, and
    once masked); the second result is never read, so this makes the first and the last
    only (each with :func:`logsumexp`), and leaves out torch's argument checks."""

    def __init__(self, logits: torch.Tensor, masks):
        normalise(self, logits)
        self._original_logits = self.logits
        self.masks = torch.as_tensor(masks, dtype=torch.bool, device=logits.device).reshape(self.logits.shape)
        masked = torch.where(self.masks, self._original_logits,
                             torch.tensor(PADDING_LOGIT, dtype=self.logits.dtype, device=logits.device))
        normalise(self, masked)

    def sample(self, sample_shape: torch.Size = torch.Size()) -> torch.Tensor:
        if sample_shape != torch.Size() or self.probs.dim() != 2:
            return super().sample(sample_shape)
        return sample_rows(self.probs)


class LegalActionsPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose PPO distribution, given action masks and at least
    :data:`SPARSE_FROM` actions, scores only the legal ones (module docstring)."""

    #: the dtype of the trunk's matrix products in PPO's passes (``torch.bfloat16``: under
    #: torch's CPU autocast, the latents handed to the float32 heads), and of the dense head's
    #: product in a wide space (:meth:`action_scores`), or None: float32
    trunk_dtype: torch.dtype | None = None

    def __init__(self, *args, possible_actions=None, **kwargs):
        """``possible_actions``: the game's actions that can ever be legal
        (:attr:`~sky_envs.core.state.Game.possible_actions`), or None; given in a space of at
        least :data:`SPARSE_FROM` actions, the dense head keeps and trains only their rows
        (:class:`~sky_envs.agents.possible_rows.PossibleRowsLinear`)."""
        self.possible_actions = None if possible_actions is None else tuple(int(a) for a in possible_actions)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        if (self.possible_actions is not None and type(self.action_net) is torch.nn.Linear
                and self.action_space.n >= SPARSE_FROM):
            # the possible rows as SB3 initialised them; the optimizer must hold the new layer's weights
            self.action_net = PossibleRowsLinear.of(self.action_net, self.possible_actions)
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "possible_actions": self.possible_actions}

    @property
    def reads_legal_actions(self) -> bool:
        """Whether PPO's distribution is built over the legal actions only (a space of at least
        :data:`SPARSE_FROM` actions): ``action_masks`` may then be :class:`LegalActions`."""
        return self.action_space.n >= SPARSE_FROM

    def action_scores(self, latent_pi: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """The logit ``action_net`` gives action ``actions[k]`` in row ``rows[k]`` (a policy with
        another head overrides this).

        Here ``action_net`` is a dense ``nn.Linear`` (or a
        :class:`~sky_envs.agents.possible_rows.PossibleRowsLinear`): one matrix product of the
        batch with the rows of its weight for the actions legal somewhere in the batch (in
        Scala about 1,900 of 7,744 for 1,024 positions), from which each pair reads its entry.
        Gathering a weight row per pair instead (about 57,000 pairs) moves six times the memory,
        forward and back. In bfloat16 the rows are rounded up to a multiple of
        :data:`ROWS_MULTIPLE` (:func:`_round_up_rows`). Without a gradient to compute (a
        rollout's decisions), a :class:`~sky_envs.agents.possible_rows.PossibleRowsLinear`
        scores with all its rows (Scala's 2,420) instead, the same scores: for 128 positions
        in a loop by itself about a fifth of the time of picking out the rows used.
        """
        head = self.action_net
        head_rows = dense_head_rows(head, actions)   # the weight's row of each action
        if isinstance(head, PossibleRowsLinear) and not torch.is_grad_enabled():
            weight, bias, columns = head.weight, head.bias, head_rows
        else:
            used = torch.zeros(len(head.weight), dtype=torch.bool, device=actions.device)
            used[head_rows] = True
            if self.trunk_dtype is not None:
                _round_up_rows(used)
            columns = (torch.cumsum(used, 0) - 1)[head_rows]   # each action's column among the used rows
            used = used.nonzero().squeeze(1)
            weight, bias = _Rows.apply(head.weight, used), _Rows.apply(head.bias, used)
        if self.trunk_dtype is None:
            return torch.nn.functional.linear(latent_pi, weight, bias)[rows, columns]
        with torch.autocast("cpu", dtype=self.trunk_dtype):   # the entries read, made float32 (not all ~2M)
            return torch.nn.functional.linear(latent_pi, weight, bias)[rows, columns].float()

    def legal_distribution(self, latent_pi: torch.Tensor, action_masks) -> LegalCategorical:
        """The distribution of ``action_net`` over the legal actions of ``action_masks``
        (one row per row of ``latent_pi``; masks, or :class:`LegalActions`)."""
        if not isinstance(action_masks, LegalActions):
            action_masks = LegalActions.of_masks(action_masks, len(latent_pi))
        rows, actions, counts = (tensor.to(latent_pi.device) for tensor in action_masks)
        if len(counts) != len(latent_pi):
            raise ValueError(f"legal actions are listed for {len(counts)} rows, the batch has {len(latent_pi)}")
        if not bool((counts > 0).all()):
            raise ValueError(f"row {int(torch.argmin(counts))} of the action masks has no legal action")
        entries = torch.arange(len(rows), device=rows.device) - (torch.cumsum(counts, 0) - counts)[rows]
        scores = self.action_scores(latent_pi, rows, actions)
        shape = (len(latent_pi), int(counts.max()))
        logits = torch.full(shape, PADDING_LOGIT, dtype=scores.dtype, device=scores.device).index_put(
            (rows, entries), scores)
        legal = torch.zeros(shape, dtype=torch.long, device=rows.device).index_put((rows, entries), actions)
        valid = torch.zeros(shape, dtype=torch.bool, device=rows.device).index_put(
            (rows, entries), torch.ones_like(rows, dtype=torch.bool))
        return LegalCategorical(logits, legal, valid)

    def masked_distribution(self, latent_pi: torch.Tensor, action_masks):
        """The distribution of ``action_net`` under ``action_masks`` (one row per row of
        ``latent_pi``): over the legal actions only in wide spaces, else sb3-contrib's
        masked categorical made with its masks (:class:`MaskedCategorical`)."""
        if self.reads_legal_actions:
            return self.legal_distribution(latent_pi, action_masks)
        distribution = self.action_dist
        distribution.distribution = MaskedCategorical(self.action_net(latent_pi).view(-1, distribution.action_dim),
                                                      action_masks)
        return distribution

    @staticmethod
    def casts_kept():
        """A region over which the trunk casts each weight to :attr:`trunk_dtype` once, not at
        every forward pass: torch's autocast keeps its casts of weights while any autocast
        region is open, and this one turns nothing on. For forward passes whose weights do
        not change (a rollout: Golden Rush's first layer, 2,574 x 256, was cast twice a step);
        never around an optimizer step, whose new weights the kept casts would not see."""
        return torch.autocast("cpu", enabled=False)

    def _latents(self, obs) -> tuple[torch.Tensor, torch.Tensor]:
        """The actor's and the critic's latent features, as SB3's ``forward`` computes them."""
        if self.trunk_dtype is not None:
            with torch.autocast("cpu", dtype=self.trunk_dtype):
                latent_pi, latent_vf = self._float32_latents(obs, self.trunk_dtype if self._trunks_open_linear else None)
            return latent_pi.float(), latent_vf.float()
        return self._float32_latents(obs)

    @property
    def _trunks_open_linear(self) -> bool:
        """Whether the actor's and the critic's layers both start with a linear layer, which
        autocast feeds with its input cast to :attr:`trunk_dtype`."""
        nets = (self.mlp_extractor.policy_net, self.mlp_extractor.value_net)
        return all(isinstance(net, torch.nn.Sequential) and len(net) and isinstance(net[0], torch.nn.Linear)
                   for net in nets)

    def _float32_latents(self, obs, features_dtype=None) -> tuple[torch.Tensor, torch.Tensor]:
        """The latents; with ``features_dtype`` shared features are cast to it once, here,
        where under autocast each trunk's first layer would cast them (the same numbers: the
        features of Golden Rush's 1,024-position minibatch are 2.6 million)."""
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features if features_dtype is None else features.to(features_dtype))
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def predict_values(self, obs) -> torch.Tensor:
        if self.trunk_dtype is None:
            return super().predict_values(obs)
        return self.value_net(self._latents(obs)[1])   # the value of a rollout's last step, as its others

    def forward(self, obs, deterministic: bool = False, action_masks=None):
        if action_masks is None:
            return super().forward(obs, deterministic, action_masks)
        latent_pi, latent_vf = self._latents(obs)
        distribution = self.masked_distribution(latent_pi, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        return actions.reshape(-1), self.value_net(latent_vf), distribution.log_prob(actions)

    def evaluate_actions(self, obs, actions, action_masks=None):
        if action_masks is None:
            return super().evaluate_actions(obs, actions, action_masks)
        latent_pi, latent_vf = self._latents(obs)
        distribution = self.masked_distribution(latent_pi, action_masks)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs, action_masks=None):
        if action_masks is None:
            return super().get_distribution(obs, action_masks)
        latent_pi, _ = self._latents(obs)
        return self.masked_distribution(latent_pi, action_masks)
