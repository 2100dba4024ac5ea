"""League self-play and tournaments on a real two-node Ray cluster started with Ray's CLI
(tests/integrations/ray_cluster_support.py): training with an env runner on each node, a
SIGTERM between iterations, ``--resume`` on the cluster ending with the tournament, and a
distributed ``training.evaluate`` identical game for game to one process. Slow: starting the
nodes and the Ray processes on them takes a minute or more on a busy 2-core machine."""

import json
import signal
import subprocess
import sys

import pytest

from tests.integrations.framework_support import framework
from tests.integrations.ray_cluster_support import two_node_cluster

CONFIG = {
    "env": {"id": "sky_scrapers_v0", "options": {"board": "square", "rows": 4, "cols": 4, "positioning": "random"}},
    "train": {"n_envs": 4, "quick_eval_games": 2},
    "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1},
    "policy": {"kind": "mlp", "hidden": [32], "activation": "relu"},
    "pool": {"window": 2, "baselines": ["random", "greedy"]},
    "eval": {"games": 2, "opponents": ["random"], "workers": 1},
}


def python(module: str, *args: str, env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.slow
def test_league_training_resume_and_evaluation_on_a_two_node_cluster(tmp_path):
    framework("ray.rllib")
    config = tmp_path / "tiny.yaml"
    config.write_text(json.dumps(CONFIG))
    run_dir = tmp_path / "run"
    with two_node_cluster() as (address, env):
        nodes = subprocess.run(
            [sys.executable, "-c", "import json, ray, sys; ray.init(address=sys.argv[1]); "
             "print(json.dumps([n['Resources'].get('CPU') for n in ray.nodes() if n['Alive']]))", address],
            env=env, capture_output=True, text=True, timeout=300)
        # two nodes of one CPU each: two env runners (one CPU each) sample one on each node
        assert json.loads(nodes.stdout.strip().splitlines()[-1]) == [1.0, 1.0], nodes.stderr[-2000:]
        training = subprocess.Popen(
            [sys.executable, "-m", "training.rllib", "--config", str(config), "--iterations", "1000",
             "--snapshot-every", "1", "--num-env-runners", "2", "--address", address, "--run-dir", str(run_dir)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        output = []
        for line in training.stdout:   # SIGTERM once two iterations are saved, as a scheduler would
            output.append(line)
            if line.startswith("iteration 2:"):
                training.send_signal(signal.SIGTERM)
                break
        rest, _ = training.communicate(timeout=600)
        assert training.returncode == 128 + signal.SIGTERM, "".join(output) + rest
        saved = json.loads((run_dir / "run_state.json").read_text())
        assert saved["iterations_done"] >= 2 and "continue with --resume" in rest
        target = str(saved["iterations_done"] + 1)
        resumed = python("training.rllib", "--resume", str(run_dir), "--iterations", target, "--num-env-runners", "2",
                         "--address", address, env=env)
        assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
        state = json.loads((run_dir / "run_state.json").read_text())
        assert state["iterations_done"] == int(target) and len(state["league"]["snapshots"]) == 2
        assert json.loads((run_dir / "evaluation.json").read_text())["ratings"].keys() == {"policy", "random"}
        # the exported policy in a tournament on the cluster: the games of one process
        command = ["--config", str(config), "--agents", "random", "greedy", str(run_dir / "final.pt"),
                   "--games", "4", "--out"]
        on_cluster = python("training.evaluate", *command, str(tmp_path / "cluster"), "--ray-address", address,
                            env=env)
        assert on_cluster.returncode == 0 and "2 CPUs" in on_cluster.stdout, on_cluster.stderr[-3000:]
        local = python("training.evaluate", *command, str(tmp_path / "local"), env=env)
        assert local.returncode == 0, local.stderr[-3000:]
        journals = [sorted((tmp_path / out / "evaluation.games.jsonl").read_text().splitlines()[1:])
                    for out in ("cluster", "local")]
        assert journals[0] == journals[1] and len(journals[0]) == 3 * 4
        # without the token the cluster refuses the driver, and the command says what to set
        refused = python("training.evaluate", *command, str(tmp_path / "refused"), "--ray-address", address,
                         env={k: v for k, v in env.items() if k != "RAY_AUTH_MODE"})
        assert refused.returncode == 2 and "RAY_AUTH_MODE=token" in refused.stderr, refused.stderr[-2000:]
