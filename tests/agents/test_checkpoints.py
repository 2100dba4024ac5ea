"""Checkpoint files: a round trip, and every kind of bad file refused cleanly, before it costs anything."""

import json
import zipfile

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sky_envs
from sky_envs.agents import CheckpointError, PolicyAgent, load_checkpoint, make_agent, open_checkpoint, save_checkpoint
from sky_envs.agents.checkpoint import FORMAT, MAX_UNPACKED_BYTES, checkpoint_digest, policy_metadata
from sky_envs.agents.network import build_policy, normalize_spec, parameter_count
from tests import REPO_ROOT

OPTIONS = {"board": "square", "rows": 4, "cols": 4}
SPECS = [{"kind": "mlp", "hidden": [16]},
         {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 2, "head_hidden": [8]}]


def write_checkpoint(path, spec=SPECS[1], env_id="sky_scrapers_v0", options=OPTIONS):
    game = sky_envs.make_game(env_id, **options)
    policy = build_policy(spec, game.observation_shape, game.num_actions)
    return save_checkpoint(path, policy, policy_metadata(game, options, spec, algorithm="test", steps=0)), policy


def resave(blob, path, fix_digest=True):
    """Write an edited checkpoint dict, re-signing it unless ``fix_digest`` is false."""
    if fix_digest and isinstance(blob.get("metadata"), dict) and isinstance(blob.get("state_dict"), dict):
        try:  # a signed file reaches the structure checks behind the digest
            blob["metadata"]["sha256"] = checkpoint_digest(blob["metadata"], blob["state_dict"])
        except (AttributeError, TypeError):
            pass  # not even hashable: the structure check comes first anyway
    torch.save(blob, path)
    return path


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s["kind"])
def test_round_trip_keeps_weights_metadata_and_actions(tmp_path, spec):
    path, policy = write_checkpoint(tmp_path / "p.pt", spec)
    loaded, metadata = load_checkpoint(path, env_id="sky_scrapers_v0", env_options=OPTIONS)
    assert metadata["network"] == normalize_spec(spec) and metadata["training"]["algorithm"] == "test"
    for name, tensor in policy.state_dict().items():
        assert torch.equal(tensor, loaded.state_dict()[name])
    game = sky_envs.make_game("sky_scrapers_v0", **OPTIONS)
    count = parameter_count(spec, game.observation_shape, game.num_actions)
    assert sum(p.numel() for p in loaded.parameters()) == count
    env = sky_envs.make("sky_scrapers_v0", **OPTIONS)
    env.reset(seed=0)
    agent = make_agent(str(path), env_id="sky_scrapers_v0", env_options=OPTIONS)
    observation = env.last()[0]
    assert isinstance(agent, PolicyAgent) and observation["action_mask"][agent.act(observation)]


def test_float16_weights_halve_the_file_and_load_as_float32(tmp_path):
    game = sky_envs.make_game("sky_scrapers_v0", **OPTIONS)
    policy = build_policy(SPECS[0], game.observation_shape, game.num_actions)
    metadata = policy_metadata(game, OPTIONS, SPECS[0], algorithm="test", steps=0)
    full = save_checkpoint(tmp_path / "full.pt", policy, metadata)
    half = save_checkpoint(tmp_path / "half.pt", policy, metadata, weights_dtype="float16")
    weights = sum(p.numel() for p in policy.parameters())
    assert full.stat().st_size - half.stat().st_size > weights  # 2 bytes saved per weight, less the zip overhead
    loaded, _ = load_checkpoint(half, env_id="sky_scrapers_v0", env_options=OPTIONS)
    for name, tensor in policy.state_dict().items():
        assert loaded.state_dict()[name].dtype == torch.float32
        assert torch.equal(loaded.state_dict()[name], tensor.half().float())
    with pytest.raises(ValueError, match="weights_dtype must be one of"):
        save_checkpoint(tmp_path / "x.pt", policy, metadata, weights_dtype="int8")


def test_a_checkpoint_for_another_env_or_shape_is_refused(tmp_path):
    path, _ = write_checkpoint(tmp_path / "p.pt")
    with pytest.raises(CheckpointError, match="is a sky_scrapers_v0 policy, not one for scala_v0"):
        load_checkpoint(path, env_id="scala_v0")
    with pytest.raises(CheckpointError, match="expects observations"):
        load_checkpoint(path, env_id="sky_scrapers_v0", env_options={"board": "standard"})


def test_edited_metadata_or_weights_are_detected(tmp_path):
    path, _ = write_checkpoint(tmp_path / "p.pt")
    blob = torch.load(path, weights_only=True)
    blob["metadata"]["training"]["steps"] = 10**9
    with pytest.raises(CheckpointError, match="tampered with or corrupted"):
        load_checkpoint(resave(blob, tmp_path / "meta.pt", fix_digest=False))
    blob = torch.load(path, weights_only=True)
    name = next(iter(blob["state_dict"]))
    blob["state_dict"][name] = blob["state_dict"][name] + 1.0
    with pytest.raises(CheckpointError, match="tampered with or corrupted"):
        load_checkpoint(resave(blob, tmp_path / "weights.pt", fix_digest=False))


@pytest.mark.parametrize("edit, message", [
    (lambda b: b.update(state_dict={"w": 1}), "state_dict must map tensor names to tensors"),
    (lambda b: b["state_dict"].update({3: torch.zeros(1)}), "state_dict must map tensor names to tensors"),
    (lambda b: b["metadata"].update(env_options="x"), "env_options' must be a dict"),
    (lambda b: b["metadata"].update(num_actions="110"), "num_actions' must be a int"),
    (lambda b: b["metadata"].update(observation_shape=[4, 4, -6]), "observation_shape"),
    (lambda b: b["metadata"].pop("network"), "misses 'network'"),
    (lambda b: b["metadata"].update(network={"kind": "mlp", "hidden": [200000, 200000]}), "integer in 1..4096"),
    (lambda b: b["metadata"].update(network={"kind": "mlp", "hidden": [4096] * 8}), "parameters"),
    (lambda b: b["metadata"].update(network={"kind": "transformer"}), "kind"),
    (lambda b: b["metadata"].update(network={"kind": "mlp", "hidden": [16], "code": "os.system"}), "unknown mlp"),
    (lambda b: b["metadata"].update(network={"kind": "mlp", "hidden": [32]}), "does not fit its own network"),
    (lambda b: b["state_dict"].pop(next(iter(b["state_dict"]))), "does not fit its own network"),
    (lambda b: b.update(format="sky_envs.policy/1"), "expected format"),
    (lambda b: b["state_dict"].update({k: v.to(torch.float64) for k, v in b["state_dict"].items()}), "float32 or float16"),
    (lambda b: b.update(metadata=[1, 2]), "must be mappings"),
    (lambda b: b["metadata"].update(search={"rollout_weight": 1.5}), "rollout_weight must be a number in"),
    (lambda b: b["metadata"].update(search={"c_puct": float("nan")}), "c_puct must be a positive number"),
    (lambda b: b["metadata"].update(search={"rollout_policy": "smart"}), "rollout_policy must be one of random, greedy"),
    (lambda b: b["metadata"].update(search={"simulations": 2}), "holds simulations=2 .* no search setting"),
    (lambda b: b["metadata"].update(search={"leaves_per_call": 0}), "leaves_per_call must be a positive integer"),
    (lambda b: b["metadata"].update(search={"solver": "yes"}), "solver must be true or false"),
    (lambda b: b["metadata"].update(search=[0.5]), "'search' must be a dict"),
])
def test_malformed_files_get_a_clean_refusal(tmp_path, edit, message):
    path, _ = write_checkpoint(tmp_path / "p.pt")
    blob = torch.load(path, weights_only=True)
    edit(blob)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(resave(blob, tmp_path / "bad.pt"), env_id="sky_scrapers_v0")


def test_files_that_hold_code_are_refused_without_advice_to_run_them(tmp_path):
    malicious = tmp_path / "malicious.pt"
    torch.save({"format": FORMAT, "payload": np.random.default_rng(0)}, malicious)
    with pytest.raises(CheckpointError, match="holds code or objects") as error:
        load_checkpoint(malicious)
    assert "weights_only=False" not in str(error.value)


def test_a_torchscript_archive_is_refused_as_such_without_torchs_advice(tmp_path):
    """torch.jit.save writes a zip that torch.load refuses with advice to load it unchecked;
    a TorchScript module holds code, so the refusal says what it is and what is expected."""
    scripted = tmp_path / "scripted.pt"
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 1)), scripted)
    with pytest.raises(CheckpointError, match="is a TorchScript archive .* holds code, so sky_envs never loads it. "
                                              "Expected a checkpoint written by sky_envs") as error:
        make_agent(str(scripted))
    assert "weights_only" not in str(error.value) and "damaged" not in str(error.value)


def test_one_checkpoint_is_read_and_its_game_built_once_for_its_raw_and_searched_agents(monkeypatch):
    """The shipped Sky Scrapers network plays averaged over the board's symmetries, which the
    env check's Game gives: one read (one digest) and one Game for both agents of the file."""
    from sky_envs.agents import checkpoint as checkpoint_module
    from sky_envs.core import registry

    reads, games = [], []
    read, make_game = checkpoint_module.read_checkpoint, registry.make_game
    monkeypatch.setattr(checkpoint_module, "read_checkpoint", lambda path: reads.append(path) or read(path))
    monkeypatch.setattr(registry, "make_game", lambda *a, **k: games.append(a) or make_game(*a, **k))
    checkpoint = open_checkpoint(REPO_ROOT / "checkpoints/sky_scrapers_v0/policy.pt", "sky_scrapers_v0")
    raw, searched = make_agent(checkpoint, seed=0), make_agent(checkpoint, seed=0, search=8)
    assert len(reads) == 1 and len(games) == 1
    assert (raw.name, searched.name) == ("policy", "policy@8")
    assert raw.policy is searched.search.evaluate.policy is checkpoint.policy
    assert raw.evaluator.symmetries is searched.search.evaluate.symmetries is checkpoint.game.symmetries
    assert searched.search.rollout_policy == checkpoint.metadata["search"]["rollout_policy"]  # recorded defaults


def test_truncated_foreign_missing_and_oversized_files(tmp_path):
    path, _ = write_checkpoint(tmp_path / "p.pt")
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[:500])
    with pytest.raises(CheckpointError, match="damaged or truncated"):
        load_checkpoint(truncated)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(CheckpointError, match="not a sky_envs policy checkpoint"):
        load_checkpoint(foreign)
    text = tmp_path / "notes.pt"
    text.write_text(json.dumps({"format": FORMAT}))
    with pytest.raises(CheckpointError, match="not a torch zip archive"):
        load_checkpoint(text)
    with pytest.raises(CheckpointError, match="does not exist"):
        make_agent(str(tmp_path / "nothing.pt"), env_id="sky_scrapers_v0")
    with pytest.raises(CheckpointError, match="not a regular file"):
        load_checkpoint(tmp_path)


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path):
    bomb = tmp_path / "bomb.pt"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("archive/data/0", "w", force_zip64=True) as member:
            chunk = bytes(2**20)
            for _ in range(MAX_UNPACKED_BYTES // len(chunk) + 1):
                member.write(chunk)
    assert bomb.stat().st_size < 2**20
    with pytest.raises(CheckpointError, match="unpacks to"):
        load_checkpoint(bomb)


DAMAGE = {"cut": st.integers(0, 10**6), "flips": st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)),
                                                          max_size=4)}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**DAMAGE)
def test_fuzzed_files_are_refused_with_a_checkpoint_error_or_load_intact(tmp_path_factory, cut, flips):
    check_damaged_file(tmp_path_factory, cut, flips)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**DAMAGE)
def test_fuzzed_files_campaign(tmp_path_factory, cut, flips):
    check_damaged_file(tmp_path_factory, cut, flips)


def check_damaged_file(tmp_path_factory, cut, flips):
    """Truncations and byte flips anywhere: only a CheckpointError, or the exact original weights."""
    directory = tmp_path_factory.mktemp("fuzz")
    path, policy = write_checkpoint(directory / "p.pt", SPECS[0])
    data = bytearray(path.read_bytes())
    data = data[: cut % (len(data) + 1)] if cut % 3 == 0 else data
    for where, value in flips:
        if data:
            data[where % len(data)] ^= value
    damaged = directory / "damaged.pt"
    damaged.write_bytes(bytes(data))
    try:
        loaded, _ = load_checkpoint(damaged)
    except CheckpointError:
        return
    for name, tensor in policy.state_dict().items():
        assert torch.equal(tensor, loaded.state_dict()[name])
