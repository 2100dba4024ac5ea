"""``train.precision: bfloat16``: the learner's trunk under torch's CPU autocast (weights,
heads, distribution and losses float32), with real MaskablePPO on tiny budgets: runs repeat
bit for bit, differ from float32's, keep their precision on resume; configs that cannot use
it are refused. ``train.fused_adam``: torch's fused Adam kernel, or its per-tensor one."""

import pytest
import torch

import sky_envs
from sky_envs.agents.legal_actions import LegalActionsPolicy
from tests.training.training_support import quiet, random_policy, tiny_config
from sky_envs.agents.checkpoint import read_checkpoint
from training.config import cpu_has_bfloat16_units, trunk_dtype
from training.alphazero import ExpertIterationRun
from training.selfplay import SelfPlayRun


def trained_weights(run_dir, precision: str, timesteps: int = 128, resume: bool = False):
    run = SelfPlayRun(tiny_config(**{"train.precision": precision, "train.timesteps": timesteps}), run_dir,
                      progress=False, log=quiet)
    run.train(resume=resume)
    policy = run.model.policy
    assert policy.trunk_dtype == (torch.bfloat16 if precision == "bfloat16" else None)
    assert all(p.dtype == torch.float32 for p in policy.parameters())
    return [p.detach().clone() for p in policy.parameters()]


def test_bfloat16_runs_repeat_bit_for_bit_and_differ_from_float32(tmp_path):
    first, second = trained_weights(tmp_path / "a", "bfloat16"), trained_weights(tmp_path / "b", "bfloat16")
    float32 = trained_weights(tmp_path / "c", "float32")
    assert all(torch.equal(x, y) for x, y in zip(first, second))
    assert not all(torch.equal(x, y) for x, y in zip(first, float32))


def test_auto_is_bfloat16_where_the_cpu_has_bfloat16_units(tmp_path):
    run = SelfPlayRun(tiny_config(**{"train.precision": "auto", "train.timesteps": 64}), tmp_path, progress=False,
                      log=quiet)
    final = run.train()
    expected = torch.bfloat16 if cpu_has_bfloat16_units() else None
    assert run.model.policy.trunk_dtype == expected
    metadata, _ = read_checkpoint(final)
    assert metadata["training"].get("trunk_dtype") == (None if expected is None else "bfloat16")
    assert trunk_dtype("float32") is None and trunk_dtype("bfloat16") == torch.bfloat16


def test_a_resumed_run_keeps_its_precision(tmp_path):
    trained_weights(tmp_path, "bfloat16", timesteps=64)
    trained_weights(tmp_path, "bfloat16", timesteps=128, resume=True)


def test_the_trunk_runs_in_bfloat16_and_hands_float32_latents_to_the_heads():
    game = sky_envs.make_game("sky_scrapers_v0", board="square", rows=4, cols=4)
    policy = random_policy(game)
    assert isinstance(policy, LegalActionsPolicy)
    observations = torch.rand(8, *game.observation_shape)
    exact = policy._latents(observations)
    policy.trunk_dtype = torch.bfloat16
    rounded = policy._latents(observations)
    for x, y in zip(exact, rounded):
        assert y.dtype == torch.float32 and not torch.equal(x, y)
        torch.testing.assert_close(y, x, atol=0.05, rtol=0.05)
    torch.testing.assert_close(policy.predict_values(observations), policy.value_net(rounded[1]))


def test_configs_that_cannot_train_in_bfloat16_are_refused():
    with pytest.raises(ValueError, match=r"train.precision must be one of \['float32', 'bfloat16', 'auto'\], got 'half'"):
        tiny_config(**{"train.precision": "half"})
    with pytest.raises(ValueError, match="train.precision 'bfloat16' is for PPO"):
        tiny_config(**{"train.precision": "bfloat16", "train.algorithm": "alphazero"})
    with pytest.raises(ValueError, match="dense or pairs policy head"):
        tiny_config(**{"train.precision": "bfloat16",
                       "policy": {"kind": "resnet", "channels": 8, "blocks": 1, "policy_head": "moves"}})


def test_fused_adam_by_default_with_ppos_eps_and_the_per_tensor_kernel_on_request(tmp_path):
    for fused in (True, False):
        config = tiny_config(**{"train.timesteps": 64, **({} if fused else {"train.fused_adam": False})})
        run = SelfPlayRun(config, tmp_path / str(fused), progress=False, log=quiet)
        run.train()
        assert run.model.policy.optimizer.defaults["fused"] is fused
        assert run.model.policy.optimizer.defaults["eps"] == 1e-5      # SB3's Adam for PPO, as without the setting
        config["train"]["timesteps"] = 128
        resumed = SelfPlayRun(config, tmp_path / str(fused), progress=False, log=quiet)
        resumed.train(resume=True)
        assert resumed.model.policy.optimizer.defaults["fused"] is fused
    expert = tiny_config(**{"train.algorithm": "alphazero"})
    assert ExpertIterationRun(expert, tmp_path / "expert", progress=False, log=quiet).optimizer.defaults["fused"] is True
    with pytest.raises(ValueError, match="train.fused_adam must be true or false, got 'yes'"):
        tiny_config(**{"train.fused_adam": "yes"})


def test_a_bfloat16_trunk_casts_its_weights_once_per_rollout_and_never_across_an_update(tmp_path, monkeypatch):
    from contextlib import contextmanager, nullcontext

    from sb3_contrib import MaskablePPO
    from torch.profiler import profile

    game = sky_envs.make_game("sky_scrapers_v0", board="square", rows=4, cols=4)
    policy = random_policy(game)
    policy.trunk_dtype = torch.bfloat16
    observations = torch.rand(8, *game.observation_shape)

    def casts(region) -> tuple[int, list]:
        with profile() as prof, region:
            with torch.no_grad():
                outputs = [policy._latents(observations) for _ in range(4)]
        return sum(e.count for e in prof.key_averages() if e.key == "aten::_to_copy"), outputs

    each_pass, exact = casts(nullcontext())
    kept, outputs = casts(policy.casts_kept())
    assert kept < each_pass and all(torch.equal(a, b) for x, y in zip(exact, outputs) for a, b in zip(x, y))

    events = []

    @contextmanager
    def recorded():
        events.append("open")
        yield
        events.append("close")

    train = MaskablePPO.train
    monkeypatch.setattr(LegalActionsPolicy, "casts_kept", staticmethod(recorded))
    monkeypatch.setattr(MaskablePPO, "train", lambda self: (events.append("update"), train(self))[1])
    SelfPlayRun(tiny_config(**{"train.precision": "bfloat16", "train.timesteps": 128}), tmp_path, progress=False,
                log=quiet).train()
    assert events == ["open", "close", "update"] * 2
