"""LegalActionsPolicy: over Scala's 7,744 actions its PPO distribution covers only the legal
ones, and gives what sb3-contrib's masked distribution gives over the same weights."""

import copy
import types

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

import sky_envs
from sky_envs.agents.legal_actions import (ROWS_MULTIPLE, SPARSE_FROM, LegalActions, LegalActionsPolicy, LegalCategorical,
                                          MaskedCategorical, _round_up_rows, logsumexp, sample_rows)
from sky_envs.agents.network import build_policy, forward, game_layout, policy_class
from tests.agents.test_search import random_positions

MLP = {"kind": "mlp", "hidden": [32, 32]}
RESNET = {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 2, "head_hidden": [16]}
PAIRS = {**RESNET, "head_channels": 4, "policy_head": "pairs"}


def sb3_copy(policy):
    """A copy of ``policy`` (the same network) whose PPO calls are sb3-contrib's own code."""
    theirs = copy.deepcopy(policy)
    for name in ("forward", "evaluate_actions", "get_distribution"):
        setattr(theirs, name, types.MethodType(getattr(MaskableActorCriticPolicy, name), theirs))
    return theirs


def twins(spec, seed=0, env_id="scala_v0"):
    """A LegalActionsPolicy for ``env_id`` (Scala: a wide space) and a copy of it that takes
    SB3's own path (the whole row of logits, masked), with a batch of positions
    (observations, masks) from random games."""
    torch.manual_seed(seed)
    game = sky_envs.make_game(env_id)
    ours = build_policy(spec, game.observation_shape, game.num_actions, **game_layout(game))
    assert isinstance(ours, LegalActionsPolicy) and (game.num_actions >= SPARSE_FROM) == (env_id == "scala_v0")
    theirs = sb3_copy(ours)            # the same network, its distribution sb3-contrib's own
    states = random_positions(game, 12, 30, seed=seed)
    observations = torch.as_tensor(np.stack([s.observation(s.current_player) for s in states]))
    masks = np.stack([s.legal_mask().astype(bool) for s in states])
    return ours, theirs, observations, masks


def update_outputs(policy, observations, masks, seed):
    """What PPO's update reads of ``policy`` on a legal action per row (drawn with ``seed``):
    values, log-probabilities, entropies and the gradient of a loss over them."""
    rng = np.random.default_rng(seed)
    actions = torch.as_tensor([rng.choice(np.flatnonzero(mask)) for mask in masks])
    policy.zero_grad()
    values, log_prob, entropy = policy.evaluate_actions(observations, actions, action_masks=masks)
    (log_prob.sum() + 0.1 * entropy.sum() + values.sum()).backward()
    return values, log_prob, entropy, torch.cat([p.grad.reshape(-1) for p in policy.parameters()])


@pytest.mark.parametrize("spec", [MLP, RESNET, PAIRS], ids=["mlp", "resnet", "pairs head"])
def test_log_probabilities_entropies_and_gradients_are_the_masked_distributions(spec):
    ours, theirs, observations, masks = twins(spec)
    results = [update_outputs(policy, observations, masks, seed=1) for policy in (ours, theirs)]
    for a, b in zip(*results):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    assert results[0][2].min() > 0          # several legal moves: a spread distribution


def test_greedy_and_sampled_actions_are_legal_and_greedy_ones_the_same():
    ours, theirs, observations, masks = twins(MLP, seed=2)
    with torch.no_grad():
        greedy = ours.get_distribution(observations, masks).get_actions(deterministic=True)
        assert torch.equal(greedy, theirs.get_distribution(observations, masks).get_actions(deterministic=True))
        logits = forward(ours, observations)[0].masked_fill(~torch.as_tensor(masks), -torch.inf)
        assert torch.equal(greedy, logits.argmax(dim=1))        # what the agents' own forward pass picks
        actions, values, log_prob = ours(observations, action_masks=masks)
        assert masks[np.arange(len(masks)), actions.numpy()].all()
        torch.testing.assert_close(log_prob, theirs.evaluate_actions(observations, actions, action_masks=masks)[1],
                                   rtol=1e-4, atol=1e-5)
        # sampled often enough, every legal action of a row turns up, and nothing else
        row = np.repeat(masks[:1], 4000, axis=0)
        drawn = ours.get_distribution(observations[:1].repeat(4000, 1, 1, 1), row).get_actions()
        assert set(drawn.tolist()) <= set(np.flatnonzero(masks[0]).tolist())
        assert len(set(drawn.tolist())) == np.count_nonzero(masks[0])


def test_illegal_actions_and_empty_masks_are_refused():
    ours, _, observations, masks = twins(MLP)
    illegal = torch.as_tensor([np.flatnonzero(~mask)[0] for mask in masks])
    with pytest.raises(ValueError, match="row 0: action .* is not among its legal actions"):
        ours.evaluate_actions(observations, illegal, action_masks=masks)
    empty = masks.copy()
    empty[3] = False
    with pytest.raises(ValueError, match="row 3 of the action masks has no legal action"):
        ours.evaluate_actions(observations, illegal, action_masks=empty)


def test_legal_actions_listed_are_the_masks_nonzero_entries_and_give_the_same_update():
    ours, _, observations, masks = twins(MLP, seed=6)
    listed = LegalActions.of_masks(masks, len(masks))
    rows, actions = torch.as_tensor(masks).nonzero(as_tuple=True)
    assert torch.equal(listed.rows, rows) and torch.equal(listed.actions, actions)
    assert torch.equal(listed.counts, torch.as_tensor(masks.sum(axis=1)))
    for other in (masks.astype(np.float32), torch.as_tensor(masks)):      # a buffer's float masks, a tensor
        assert all(torch.equal(a, b) for a, b in zip(LegalActions.of_masks(other, len(masks)), listed))
    # rows picked out of a list held as arrays (a rollout buffer's minibatch)
    counts = listed.counts.numpy()
    picked = np.array([5, 0, 11, 5])
    selected = LegalActions.select(listed.actions.numpy(), np.cumsum(counts) - counts, counts, picked)
    assert all(torch.equal(a, b) for a, b in zip(selected, LegalActions.of_masks(masks[picked], len(picked))))
    # the update reads the same numbers from either, gradients included
    from_masks = update_outputs(ours, observations, masks, seed=7)
    rng = np.random.default_rng(7)
    actions = torch.as_tensor([rng.choice(np.flatnonzero(mask)) for mask in masks])
    ours.zero_grad()
    values, log_prob, entropy = ours.evaluate_actions(observations, actions, action_masks=listed)
    (log_prob.sum() + 0.1 * entropy.sum() + values.sum()).backward()
    from_list = (values, log_prob, entropy, torch.cat([p.grad.reshape(-1) for p in ours.parameters()]))
    assert all(torch.equal(a, b) for a, b in zip(from_masks, from_list))
    with pytest.raises(ValueError, match="legal actions are listed for 4 rows, the batch has 12"):
        ours.get_distribution(observations, selected)


def test_the_dense_head_scores_legal_actions_in_the_trunk_dtype():
    """With a bfloat16 trunk, a wide space's dense head scores its legal rows in bfloat16 too:
    float32 scores near the float32 ones, gradients for the rows used only."""
    ours, _, observations, masks = twins(MLP, seed=8)
    exact = update_outputs(ours, observations, masks, seed=9)
    ours.trunk_dtype = torch.bfloat16
    rounded = update_outputs(ours, observations, masks, seed=9)
    for a, b in zip(exact[:3], rounded[:3]):
        assert b.dtype == torch.float32 and not torch.equal(a, b)
        torch.testing.assert_close(b, a, atol=0.05, rtol=0.05)
    unused = ~torch.as_tensor(masks).any(dim=0)
    assert not ours.action_net.weight.grad[unused].any() and ours.action_net.weight.grad[~unused].any()


def test_bfloat16_head_products_take_a_multiple_of_64_rows_and_give_the_same_scores(monkeypatch):
    """oneDNN compiles a bfloat16 product per new shape: the legal rows are rounded up to a
    multiple of ROWS_MULTIPLE with rows no batch reads. The scores are the same numbers; the
    gradients sum the same terms (with zeros among them)."""
    used = torch.zeros(7744, dtype=torch.bool)
    used[torch.tensor([3, 70, 71, 7000])] = True
    _round_up_rows(used)
    assert int(used.sum()) == ROWS_MULTIPLE and used[[3, 70, 71, 7000]].all() and used[:ROWS_MULTIPLE - 3].all()
    full = torch.ones(100, dtype=torch.bool)
    _round_up_rows(full)                            # already a multiple, or all marked: left as is
    assert full.all()
    ours, _, observations, masks = twins(MLP, seed=10)
    ours.trunk_dtype = torch.bfloat16
    widths = []
    linear = torch.nn.functional.linear
    monkeypatch.setattr(torch.nn.functional, "linear", lambda x, w, *a: widths.append(len(w)) or linear(x, w, *a))
    rounded = update_outputs(ours, observations, masks, seed=11)
    head = [width for width in widths if width > 32]   # the trunk's layers are 32 wide, the value head 1
    assert len(head) == 1 and head[0] % ROWS_MULTIPLE == 0 and head[0] > torch.as_tensor(masks).any(dim=0).sum()
    monkeypatch.setattr("sky_envs.agents.legal_actions.ROWS_MULTIPLE", 1)
    exact_rows = update_outputs(ours, observations, masks, seed=11)
    assert all(torch.equal(a, b) for a, b in zip(rounded[:3], exact_rows[:3]))
    torch.testing.assert_close(rounded[3], exact_rows[3], atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("batch", [1, 5, 12])
def test_masked_forward_scores_a_wide_dense_heads_legal_rows_only_with_the_same_numbers(batch):
    """Opponents and agents (NetworkEvaluator) score only the rows of Scala's dense head
    legal somewhere in their batch: the masked logits of the whole pass, -inf in the same
    places and the others equal up to float rounding (MKL may sum a product over fewer rows
    in another order: on an AMD EPYC with AVX-512 the last bits differ), and the same values."""
    from sky_envs.agents.network import masked_forward
    from sky_envs.agents.policy import NetworkEvaluator

    ours, _, observations, masks = twins(MLP, seed=12)
    observations, masks = observations[:batch], masks[:batch]
    with torch.no_grad():
        logits, values = forward(ours, observations)
        whole = logits.masked_fill(~torch.as_tensor(masks), -torch.inf)
        for with_values in (True, False):
            masked, value = masked_forward(ours, observations, masks, with_values)
            torch.testing.assert_close(masked, whole, rtol=1e-6, atol=1e-6)
            assert torch.equal(masked.isinf(), whole.isinf())
            assert torch.equal(value, values) if with_values else value is None
    torch.testing.assert_close(NetworkEvaluator(ours).masked_logits(observations.numpy(), masks), whole,
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("env_id", ["scala_v0", "golden_rush_v0"])
def test_a_bfloat16_trunk_casts_its_shared_features_once_with_the_same_numbers(env_id, monkeypatch):
    ours, _, observations, masks = twins(MLP, seed=13, env_id=env_id)
    ours.trunk_dtype = torch.bfloat16
    assert ours._trunks_open_linear
    casts = []
    to = torch.Tensor.to
    monkeypatch.setattr(torch.Tensor, "to", lambda self, *a, **k: casts.append(tuple(self.shape)) or to(self, *a, **k))
    once = update_outputs(ours, observations, masks, seed=14)
    assert casts.count(tuple(observations.reshape(len(observations), -1).shape)) == 1
    monkeypatch.setattr(LegalActionsPolicy, "_trunks_open_linear", False)   # each first layer casts them (autocast)
    twice = update_outputs(ours, observations, masks, seed=14)
    assert all(torch.equal(a, b) for a, b in zip(once, twice))


def test_which_distribution_each_call_gets():
    """Wide spaces with masks: the legal actions only; narrow spaces with masks: sb3-contrib's
    masked categorical made at once; calls without masks: sb3-contrib's own code."""
    ours, _, observations, masks = twins(MLP)
    assert isinstance(ours.get_distribution(observations, masks), LegalCategorical)
    game = sky_envs.make_game("skybridge_v0")
    policy = build_policy(MLP, game.observation_shape, game.num_actions)
    observation = torch.zeros((1, *game.observation_shape))
    masked = policy.get_distribution(observation, np.ones((1, game.num_actions), bool)).distribution
    assert type(masked) is MaskedCategorical and not masked._validate_args
    assert type(policy.get_distribution(observation).distribution) is MaskableCategorical
    assert issubclass(policy_class(PAIRS), LegalActionsPolicy)


def test_maskable_ppo_trains_on_scala_with_it(tmp_path):
    """A real MaskablePPO run over Scala's vector env with the policy (its rollout and update
    go through the legal-actions distribution), saved and loaded again."""
    from sky_envs.integrations.sb3_vector import SingleAgentVecEnv

    env = SingleAgentVecEnv("scala_v0", num_envs=4, seed=0)
    model = MaskablePPO(LegalActionsPolicy, env, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(64)
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    model.save(tmp_path / "model")
    again = MaskablePPO.load(tmp_path / "model", device="cpu")
    assert type(again.policy) is LegalActionsPolicy


@pytest.mark.parametrize("env_id", ["highrise_heist_v0", "skybridge_v0"])
def test_narrow_spaces_give_sb3_contribs_numbers_bit_for_bit(env_id):
    """Below SPARSE_FROM actions the distribution is sb3-contrib's masked categorical made with
    its masks at once: values, log-probabilities, entropies and gradients equal sb3-contrib's
    own path exactly; actions are drawn from its probabilities by ``sample_rows``."""
    ours, theirs, observations, masks = twins(MLP, seed=3, env_id=env_id)
    results = []
    for policy in (ours, theirs):
        outputs = update_outputs(policy, observations, masks, seed=4)
        torch.manual_seed(5)
        with torch.no_grad():
            results.append((*outputs, *policy(observations, action_masks=masks)))
    for a, b in zip(results[0][:4], results[1][:4]):
        assert torch.equal(a, b)
    assert results[0][2].min() > 0
    with torch.no_grad():
        torch.manual_seed(5)
        drawn = sample_rows(theirs.get_distribution(observations, masks).distribution.probs)
        torch.manual_seed(5)
        actions, values, log_prob = ours(observations, action_masks=masks)
        assert torch.equal(actions, drawn)
        assert torch.equal(values, results[1][5])
        assert torch.equal(log_prob, theirs.evaluate_actions(observations, actions, action_masks=masks)[1])


def test_sample_rows_draws_each_index_with_its_probability_and_never_one_of_probability_0():
    torch.manual_seed(0)
    probs = torch.tensor([[0.0, 0.5, 0.0, 0.3, 0.2, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 2.0],
                          [1e-30, 0.0, 1.0, 0.0, 0.0, 0.0]])
    draws = torch.stack([sample_rows(probs) for _ in range(20000)])
    first = torch.bincount(draws[:, 0], minlength=6).double() / len(draws)
    assert first[[0, 2, 5]].sum() == 0
    torch.testing.assert_close(first[[1, 3, 4]], torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64), atol=0.015, rtol=0)
    assert (draws[:, 1] == 5).all()          # an unnormalised row: its one entry
    assert set(draws[:, 2].tolist()) <= {0, 2}
    torch.manual_seed(1)
    again = sample_rows(probs)
    torch.manual_seed(1)
    assert torch.equal(again, sample_rows(probs))   # torch's generator: seeded, it repeats
    # the running total's last entry, which u times the total must stay below
    assert (sample_rows(torch.tensor([[0.0, 1.0, 0.0]]).repeat(1000, 1)) == 1).all()


def test_logsumexp_is_torchs_to_the_last_bit_forward_and_backward():
    """The normalisation of both distributions equals ``torch.logsumexp`` exactly, gradient
    included, on rows with masked entries (-1e8), entries on both sides of where ``exp``
    reaches 0, infinities and a row that is all masked. On one torch thread, the setting
    under which training promises the same weights bit for bit (with two, torch's own
    ``logsumexp`` has been seen to round a first call in a process differently)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        generator = torch.Generator().manual_seed(0)
        logits = torch.randn(64, 300, generator=generator) * 30
        logits[torch.rand(64, 300, generator=generator) < 0.8] = -1e8
        logits[1, :20] = torch.linspace(-130, -80, 20)         # around exp's underflow, below a max of 0
        logits[1, 20] = 0.0
        logits[2] = -1e8                                       # nothing legal
        logits[3, 5] = float("-inf")
        logits[4, 7] = float("inf")
        ours_input, theirs_input = logits.clone().requires_grad_(), logits.clone().requires_grad_()
        ours, theirs = logsumexp(ours_input), theirs_input.logsumexp(dim=-1, keepdim=True)
        assert torch.equal(ours, theirs)
        finite = theirs.isfinite().squeeze(1)
        weights = torch.randn(64, 1, generator=generator)
        (ours[finite] * weights[finite]).sum().backward()
        (theirs[finite] * weights[finite]).sum().backward()
        both_nan = ours_input.grad.isnan() & theirs_input.grad.isnan()
        assert torch.equal(ours_input.grad[~both_nan], theirs_input.grad[~both_nan])
        assert both_nan.sum() == 1                            # inf - inf in row 4, both ways
        double = logits.double()
        assert torch.equal(logsumexp(double), double.logsumexp(dim=-1, keepdim=True))
    finally:
        torch.set_num_threads(threads)


def test_the_learners_log_scale_over_nonnegative_observations_is_log_scale_to_the_last_bit():
    from gymnasium import spaces

    from sky_envs.agents.features import Log1pFlatten, log_scale

    values = torch.tensor([[0.0, -0.0, 1.0, 0.5, 3.0, 1e-30, 255.0, 7e-8]])
    nonnegative = Log1pFlatten(spaces.Box(0.0, np.inf, shape=(8,), dtype=np.float32))
    signed = Log1pFlatten(spaces.Box(-1.0, 1.0, shape=(8,), dtype=np.float32))
    assert nonnegative.nonnegative and not signed.nonnegative
    for extractor in (nonnegative, signed):
        out = extractor(values)
        assert torch.equal(out, log_scale(values)) and torch.equal(torch.signbit(out), torch.signbit(values))
