"""A dense policy head that trains only the rows of actions that can ever be legal.

In Scala, 2,420 of the 7,744 actions (a move from one cell to another) can be legal in some
position: a stone steps to a neighbour or jumps, two cells at a time, to a cell of the same
row and column parity (:attr:`~sky_envs.core.state.Game.possible_actions`). The other rows
of a dense head's ``nn.Linear(256, 7744)`` never score a legal move, so they never get a
gradient, and Adam never moves them (zero moments: a zero step); yet every PPO update wrote
their zero gradient, measured it for clipping and passed Adam over it (about a fifth of a
Scala update), and two thirds of a run's resume file was their optimizer state.

:class:`PossibleRowsLinear` is that linear layer with only the possible rows as parameters;
the others keep their values (as initialised, or as loaded) in buffers, outside the
optimizer. To everything outside it, it is the full ``nn.Linear``: the same output up to
float rounding (two products over fewer rows, which on some CPUs MKL sums in another order
than the full one), one column per action, and a ``state_dict`` with the full ``weight`` and ``bias``, so that
checkpoints are the same files, bit for bit, and load into either layer.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


class PossibleRowsLinear(nn.Module):
    """``nn.Linear(in_features, out_features)`` whose rows outside ``possible`` (a sorted list
    of distinct output indices) are buffers, not parameters; see the module docstring."""

    def __init__(self, in_features: int, out_features: int, possible):
        super().__init__()
        possible = np.asarray(possible, dtype=np.int64)
        if possible.ndim != 1 or possible.size == 0 or (np.diff(possible) <= 0).any() \
                or possible[0] < 0 or possible[-1] >= out_features:
            raise ValueError(f"possible must list distinct output rows of 0..{out_features - 1} in ascending order, "
                             f"got {possible.size} entries")
        self.in_features, self.out_features = in_features, out_features
        impossible = np.setdiff1d(np.arange(out_features), possible)
        self.weight = nn.Parameter(torch.empty(possible.size, in_features))
        self.bias = nn.Parameter(torch.empty(possible.size))
        # the other rows' values: saved and loaded as part of the full weight and bias (hooks)
        self.register_buffer("fixed_weight", torch.zeros(impossible.size, in_features), persistent=False)
        self.register_buffer("fixed_bias", torch.zeros(impossible.size), persistent=False)
        self.register_buffer("possible", torch.tensor(possible), persistent=False)
        self.register_buffer("impossible", torch.tensor(impossible), persistent=False)
        row_of = torch.full((out_features,), -1, dtype=torch.int64)
        row_of[self.possible] = torch.arange(possible.size)
        self.register_buffer("row_of", row_of, persistent=False)   # an action's row of weight, -1: impossible
        self.register_state_dict_post_hook(_full_state)
        self.register_load_state_dict_pre_hook(_split_state)

    @classmethod
    def of(cls, linear: nn.Linear, possible) -> PossibleRowsLinear:
        """The layer holding ``linear``'s weights (copies), its possible rows as parameters."""
        layer = cls(linear.in_features, linear.out_features, possible)
        layer.load_state_dict(linear.state_dict())
        return layer

    def rows(self, actions: torch.Tensor) -> torch.Tensor:
        """The rows of :attr:`weight` scoring ``actions``; ``ValueError`` for an action that
        the layer holds as never legal (the game's ``possible_actions`` would be wrong)."""
        rows = self.row_of[actions]
        if bool((rows < 0).any()):
            action = int(actions[rows < 0][0])
            raise ValueError(f"action {action} is legal here, but the policy head holds it as never legal "
                             "(Game.possible_actions leaves it out): it cannot train its score")
        return rows

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        trained = nn.functional.linear(x, self.weight, self.bias)
        fixed = nn.functional.linear(x, self.fixed_weight, self.fixed_bias)
        full = trained.new_empty((*trained.shape[:-1], self.out_features))
        return full.index_copy(-1, self.impossible, fixed).index_copy(-1, self.possible, trained)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, possible={len(self.possible)}"


def dense_head_rows(head: nn.Module, actions: torch.Tensor) -> torch.Tensor:
    """The rows of a dense head's ``weight`` (an ``nn.Linear`` or a :class:`PossibleRowsLinear`)
    that score ``actions``."""
    return head.rows(actions) if isinstance(head, PossibleRowsLinear) else actions


def _full_state(module: PossibleRowsLinear, state_dict: dict, prefix: str, local_metadata) -> None:
    for name in ("weight", "bias"):
        trained, fixed = state_dict[prefix + name], getattr(module, f"fixed_{name}")
        full = trained.new_empty((module.out_features, *trained.shape[1:]))
        full[module.possible] = trained.detach()
        full[module.impossible] = fixed
        state_dict[prefix + name] = full


def _split_state(module: PossibleRowsLinear, state_dict: dict, prefix: str, local_metadata, strict,
                 missing_keys, unexpected_keys, error_msgs) -> None:
    expected = {"weight": (module.out_features, module.in_features), "bias": (module.out_features,)}
    for name, shape in expected.items():
        key = prefix + name
        if key not in state_dict:
            continue   # torch reports it missing
        full = state_dict[key]
        if tuple(full.shape) != shape:
            error_msgs.append(f"size mismatch for {key}: a tensor of shape {tuple(full.shape)}, where the layer "
                              f"stands for a full linear layer of shape {shape}")
            state_dict.pop(key)
            continue
        with torch.no_grad():
            getattr(module, f"fixed_{name}").copy_(full[module.impossible])
        state_dict[key] = full[module.possible]


__all__ = ["PossibleRowsLinear", "dense_head_rows"]
