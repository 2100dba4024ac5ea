"""PossibleRowsLinear: a wide dense head that trains only the rows of actions that can ever be
legal (Scala's Game.possible_actions) is, to everything outside it, the full linear layer, and
trains those rows as the full layer would (the full layer never moves the others)."""

import copy

import numpy as np
import pytest
import torch

import sky_envs
from sky_envs.agents.legal_actions import LegalActionsPolicy
from sky_envs.agents.network import forward, game_layout, masked_forward, policy_kwargs
from sky_envs.agents.possible_rows import PossibleRowsLinear, dense_head_rows
from tests.agents.test_legal_actions import MLP, RESNET, twins, update_outputs

SCALA = sky_envs.make_game("scala_v0")


def test_the_layer_is_the_full_linear_layer_training_only_its_possible_rows():
    torch.manual_seed(0)
    linear = torch.nn.Linear(16, 40)
    possible = [1, 2, 7, 20, 39]
    layer = PossibleRowsLinear.of(linear, possible)
    assert [tuple(p.shape) for p in layer.parameters()] == [(5, 16), (5,)]
    x = torch.randn(3, 16)
    torch.testing.assert_close(layer(x), linear(x), rtol=0, atol=1e-6)
    # its state is the full layer's, bit for bit; it loads into either
    state = layer.state_dict()
    assert all(torch.equal(state[name], linear.state_dict()[name]) for name in ("weight", "bias"))
    other = torch.nn.Linear(16, 40)
    again = PossibleRowsLinear(16, 40, possible)
    again.load_state_dict(other.state_dict())
    assert torch.equal(again.state_dict()["weight"], other.weight)
    torch.testing.assert_close(again(x), other(x), rtol=0, atol=1e-6)   # products over fewer rows: float rounding
    other.load_state_dict(layer.state_dict())
    assert torch.equal(other.weight, linear.weight)
    assert torch.equal(dense_head_rows(layer, torch.tensor([7, 39, 1])), torch.tensor([2, 4, 0]))
    assert torch.equal(dense_head_rows(linear, torch.tensor([7, 39])), torch.tensor([7, 39]))
    # a step trains the possible rows only
    layer(x).sum().backward()
    with torch.no_grad():
        for p in layer.parameters():
            p -= p.grad
    moved = layer.state_dict()["weight"] != linear.weight
    assert moved[possible].all() and not moved[[0, 3, 38]].any()


def test_wrong_rows_shapes_and_impossible_actions_are_refused():
    with pytest.raises(ValueError, match="distinct output rows of 0..39 in ascending order"):
        PossibleRowsLinear(16, 40, [3, 1])
    with pytest.raises(ValueError, match="distinct output rows"):
        PossibleRowsLinear(16, 40, [0, 40])
    layer = PossibleRowsLinear(16, 40, [1, 2])
    with pytest.raises(RuntimeError, match=r"shape \(30, 16\), where the layer stands for a full linear layer of shape \(40, 16\)"):
        layer.load_state_dict(torch.nn.Linear(16, 30).state_dict())
    with pytest.raises(ValueError, match="action 5 is legal here, but the policy head holds it as never legal"):
        dense_head_rows(layer, torch.tensor([1, 5]))


@pytest.mark.parametrize("spec", [MLP, RESNET], ids=["mlp", "resnet"])
def test_a_policy_keeping_the_possible_rows_updates_as_the_full_head_does(spec):
    """Scala's dense head with only its possible rows: the same values, log-probabilities,
    entropies and gradients as the full head, whose other rows get no gradient at all."""
    full, _, observations, masks = twins(spec, seed=3)
    kwargs = policy_kwargs(spec, SCALA.observation_shape, SCALA.num_actions, **game_layout(SCALA),
                           possible_actions=SCALA.possible_actions)
    ours = LegalActionsPolicy(full.observation_space, full.action_space, lambda _: 3e-4, **kwargs)
    ours.load_state_dict(full.state_dict())
    assert isinstance(ours.action_net, PossibleRowsLinear) and len(ours.action_net.weight) == 2420
    held = {id(p) for group in ours.optimizer.param_groups for p in group["params"]}
    assert held == {id(p) for p in ours.parameters()}        # the optimizer trains the kept rows
    a, b = (update_outputs(policy, observations, masks, seed=4) for policy in (full, ours))
    for x, y in zip(a[:3], b[:3]):
        assert torch.equal(x, y)
    grads = {name: p.grad for name, p in full.named_parameters()}
    possible = torch.tensor(SCALA.possible_actions)
    impossible = torch.ones(SCALA.num_actions, dtype=torch.bool)
    impossible[possible] = False
    assert not grads["action_net.weight"][impossible].any()
    for name, p in ours.named_parameters():
        expected = grads[name][possible] if name.startswith("action_net.") else grads[name]
        torch.testing.assert_close(p.grad, expected, rtol=0, atol=0)
    # a rollout's decisions (no gradient: every kept row in one product), in float32 and bfloat16
    with torch.no_grad():
        for dtype in (None, torch.bfloat16):
            full.trunk_dtype = ours.trunk_dtype = dtype
            x, y = (policy.get_distribution(observations, masks).distribution.logits for policy in (full, ours))
            assert torch.equal(x, y)
        full.trunk_dtype = ours.trunk_dtype = None
    # the agents' passes: the same masked logits, the same whole rows
    with torch.no_grad():
        x, y = (masked_forward(policy, observations, masks)[0] for policy in (full, ours))
        assert torch.equal(x, y)
        torch.testing.assert_close(forward(ours, observations)[0], forward(full, observations)[0], rtol=0, atol=1e-6)
    # after an optimizer step its weights are the full head's, bit for bit (a checkpoint is the same file)
    full.optimizer.step()
    ours.optimizer.step()
    theirs = full.state_dict()
    assert all(torch.equal(tensor, theirs[name]) for name, tensor in ours.state_dict().items())
    assert not torch.equal(theirs["action_net.weight"], twins(spec, seed=3)[0].state_dict()["action_net.weight"])


def test_only_wide_dense_heads_keep_possible_rows():
    game = sky_envs.make_game("sky_scrapers_v0")
    assert game.possible_actions is None
    narrow = policy_kwargs(MLP, game.observation_shape, game.num_actions, possible_actions=np.arange(5))
    assert "possible_actions" not in narrow       # a narrow space: nothing to gain
    pairs = {**RESNET, "head_channels": 4, "policy_head": "pairs"}
    kwargs = policy_kwargs(pairs, SCALA.observation_shape, SCALA.num_actions, **game_layout(SCALA),
                           possible_actions=SCALA.possible_actions)
    assert "possible_actions" not in kwargs       # a pairs head has no rows
