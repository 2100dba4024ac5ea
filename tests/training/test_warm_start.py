"""train.init_from (both learners start from a checkpoint's weights) and alphazero's search settings."""

import pytest
import torch

from sky_envs.agents import load_checkpoint
from sky_envs.agents.checkpoint import CheckpointError
from training import alphazero
from training.alphazero import ExpertIterationRun
from training.config import load_config
from training.selfplay import SelfPlayRun
from training.train import main as train_main
from tests.training.training_support import SMALL_NETWORK, quiet, tiny_config

AZ = {"train.algorithm": "alphazero", "train.timesteps": 40, "train.checkpoint_every": 40,
      "alphazero.simulations": 4, "alphazero.parallel_games": 2, "alphazero.batch_size": 8}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A checkpoint from a tiny PPO run on the shared tiny config."""
    run_dir = tmp_path_factory.mktemp("source")
    run = SelfPlayRun(tiny_config(**{"train.timesteps": 64, "train.checkpoint_every": 64}), run_dir,
                      progress=False, log=quiet)
    return run.train()


def same_weights(policy, path) -> bool:
    loaded, _ = load_checkpoint(path)
    theirs = loaded.state_dict()
    return all(torch.equal(tensor, theirs[name]) for name, tensor in policy.state_dict().items())


def test_expert_iteration_starts_from_the_checkpoint_and_names_it(tmp_path, source):
    run = ExpertIterationRun(tiny_config(**AZ, **{"train.init_from": str(source)}), tmp_path, progress=False, log=quiet)
    assert same_weights(run.policy, source)
    final = run.train()
    _, metadata = load_checkpoint(final)
    _, source_metadata = load_checkpoint(source)
    init = metadata["training"]["init_from"]
    assert init == {"file": str(source), "sha256": source_metadata["sha256"], "training": source_metadata["training"]}


def test_ppo_starts_from_the_checkpoint_and_names_it(tmp_path, source):
    run = SelfPlayRun(tiny_config(**{"train.init_from": str(source)}), tmp_path, progress=False, log=quiet)
    vec = run._make_vec_env()
    try:
        assert same_weights(run._new_model(vec).policy, source)
    finally:
        vec.close()
    final = run.train()
    _, metadata = load_checkpoint(final)
    assert metadata["training"]["init_from"]["file"] == str(source)
    assert "init_from" not in load_checkpoint(source)[1]["training"]  # a run from scratch names none


def test_a_checkpoint_that_does_not_fit_the_run_is_refused(tmp_path, source):
    with pytest.raises(CheckpointError, match="holds the network .* but the config's policy is"):
        SelfPlayRun(tiny_config(**{"train.init_from": str(source), "policy": {**SMALL_NETWORK, "hidden": [16]}}),
                    tmp_path, progress=False, log=quiet)
    with pytest.raises(CheckpointError, match="is a sky_scrapers_v0 policy, not one for skybridge_v0"):
        ExpertIterationRun(tiny_config(**AZ, **{"train.init_from": str(source), "env.id": "skybridge_v0",
                                                "env.options": {}}), tmp_path, progress=False, log=quiet)
    with pytest.raises(CheckpointError, match="does not exist"):
        SelfPlayRun(tiny_config(**{"train.init_from": str(tmp_path / "missing.pt")}), tmp_path, progress=False, log=quiet)


def test_the_cli_reports_a_bad_init_from_as_a_usage_error(tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text(f"env: {{id: sky_scrapers_v0}}\ntrain: {{init_from: {tmp_path / 'missing.pt'}}}\n")
    with pytest.raises(SystemExit) as stop:
        train_main(["--config", str(config), "--run-dir", str(tmp_path / "run")])
    assert stop.value.code == 2 and "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("key, value, message", [
    ("train.init_from", 3, "train.init_from must be the path of a checkpoint file"),
    ("train.init_from", "", "train.init_from must be the path of a checkpoint file"),
    ("alphazero.rollout_weight", 1.5, r"alphazero.rollout_weight must be a number in \[0, 1\]"),
    ("alphazero.rollout_weight", True, r"alphazero.rollout_weight must be a number in \[0, 1\]"),
    ("alphazero.c_puct", 0, "alphazero.c_puct must be a positive number"),
    ("alphazero.rollout_policy", "smart", "alphazero.rollout_policy must be one of random, greedy"),
])
def test_bad_settings_are_refused(key, value, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, **{"env.id": "sky_scrapers_v0", key: value})


def test_self_play_searches_with_the_configured_rollout_weight(tmp_path, monkeypatch):
    seen = []

    class Recording(alphazero.PUCTSearch):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            seen.append(self.rollout_weight)

    monkeypatch.setattr(alphazero, "PUCTSearch", Recording)
    run = ExpertIterationRun(tiny_config(**AZ, **{"alphazero.rollout_weight": 0.25}), tmp_path, progress=False,
                             log=quiet)
    run.train()
    assert seen and set(seen) == {0.25}


def test_the_cli_option_overrides_the_config_and_is_refused_with_resume(tmp_path, source, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text("env: {id: sky_scrapers_v0, options: {board: square, rows: 4, cols: 4, positioning: random}}\n"
                      "train: {timesteps: 64, n_envs: 2, checkpoint_every: 64, quick_eval_games: 2}\n"
                      "ppo: {n_steps: 32, batch_size: 32, n_epochs: 1}\n"
                      "policy: {kind: mlp, hidden: [32], activation: relu}\n")
    run_dir = tmp_path / "run"
    assert train_main(["--config", str(config), "--run-dir", str(run_dir), "--init-from", str(source),
                       "--no-eval", "--no-progress"]) == 0
    assert load_checkpoint(run_dir / "final.pt")[1]["training"]["init_from"]["file"] == str(source)
    with pytest.raises(SystemExit) as stop:
        train_main(["--resume", str(run_dir), "--init-from", str(source)])
    assert stop.value.code == 2 and "--init-from starts a new run" in capsys.readouterr().err


def test_a_resumed_run_keeps_its_sources_record_when_the_file_has_gone(tmp_path, source):
    import shutil

    copy = tmp_path / "source.pt"
    shutil.copy(source, copy)
    config = tiny_config(**{**AZ, "train.init_from": str(copy), "train.timesteps": 80})
    ExpertIterationRun(config, tmp_path / "run", progress=False, log=quiet).train(callback=lambda run: False)
    recorded = load_checkpoint(tmp_path / "run" / "final.pt")[1]["training"]["init_from"]
    copy.unlink()  # a resume neither needs the file nor forgets where the weights came from
    resumed = ExpertIterationRun(config, tmp_path / "run", progress=False, log=quiet)
    final = resumed.train(resume=True)
    assert resumed.steps_done >= 80 and load_checkpoint(final)[1]["training"]["init_from"] == recorded

    ppo_config = tiny_config(**{"train.init_from": str(source)})
    SelfPlayRun(ppo_config, tmp_path / "ppo", progress=False, log=quiet).train()
    recorded = load_checkpoint(tmp_path / "ppo" / "final.pt")[1]["training"]["init_from"]
    resumed = SelfPlayRun(tiny_config(**{"train.init_from": str(copy), "train.timesteps": 512}), tmp_path / "ppo",
                          progress=False, log=quiet)
    assert load_checkpoint(resumed.train(resume=True))[1]["training"]["init_from"] == recorded


def test_a_checkpoint_written_before_a_spec_key_existed_still_fits(tmp_path):
    """A resnet checkpoint whose spec has no ``policy_head`` (older files) is the dense head."""
    import sky_envs
    from sky_envs.agents.checkpoint import policy_metadata, save_checkpoint
    from sky_envs.agents.network import build_policy

    config = tiny_config()
    spec = {"kind": "resnet", "channels": 4, "blocks": 1, "head_channels": 2, "head_hidden": [8], "activation": "relu"}
    game = sky_envs.make_game(config["env"]["id"], **config["env"]["options"])
    metadata = policy_metadata(game, config["env"]["options"], spec, algorithm="test", steps=0)
    del metadata["network"]["policy_head"]  # as written before the key existed
    policy = build_policy(spec, game.observation_shape, game.num_actions)
    path = save_checkpoint(tmp_path / "old.pt", policy, metadata)
    run = SelfPlayRun(tiny_config(**{"train.init_from": str(path), "policy": spec}), tmp_path / "run",
                      progress=False, log=quiet)
    assert run.init_from["file"] == str(path)
