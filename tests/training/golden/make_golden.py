"""Write the golden expert-iteration runs: three iterations of three tiny runs, fact by fact.

    python -m tests.training.golden.make_golden   # from the repo root: rewrite every file

One JSON file per case, ``expert_iteration_<case>.json``, one fact per line: per iteration the
samples it played (a digest of the observations, the offsets of each sample's legal actions,
those actions, their policy-target shares, the value targets), the baseline opponents' scores
and the learner's losses; at the end each weight tensor's shape, sum and sum of absolute
values. They cover self-play with baselines in the pool (best-move and mean value targets),
an alpha-beta expert with DAgger, and a checkpoint's search as expert with DAgger and search
value targets. ``tests/training/test_alphazero.py`` replays each case and compares: the
positions, actions and scores exactly, the float targets, losses and weights to a relative
1e-4 (torch's CPU kernels differ between processors in the last bits).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).parent
COMMAND = "python -m tests.training.golden.make_golden"
ITERATIONS = 3

CASES = {
    "selfplay_baselines": {"alphazero.opponents": {"greedy": 0.25, "random": 0.25},
                           "alphazero.policy_target": "best", "alphazero.value_target": "mean"},
    "alphabeta_dagger": {"alphazero.expert": "alphabeta@1", "alphazero.expert_moves": 0.5,
                         "alphazero.opponents": {"random": 0.5}},
    "checkpoint_dagger": {"alphazero.expert": "TEACHER@4", "alphazero.expert_moves": 0.5,
                          "alphazero.value_target": "search"},
}


def file_path(case: str) -> Path:
    return HERE / f"expert_iteration_{case}.json"


def new_run(case: str, folder: Path):
    """The tiny run of ``case`` in ``folder`` (its teacher checkpoint written there first)."""
    from sky_envs.agents.checkpoint import policy_metadata, save_checkpoint
    from sky_envs.agents.network import build_policy, game_layout
    from sky_envs.core.registry import make_game
    from tests.training.test_alphazero import TINY, quiet, tiny_config
    from training.alphazero import ExpertIterationRun

    settings = {**CASES[case], "train.torch_threads": 1}
    if settings.get("alphazero.expert", "").startswith("TEACHER"):
        game = make_game(TINY["env.id"], **TINY["env.options"])
        torch.manual_seed(7)
        teacher = build_policy(TINY["policy"], game.observation_shape, game.num_actions, **game_layout(game))
        path = save_checkpoint(folder / "teacher.pt", teacher,
                               policy_metadata(game, TINY["env.options"], TINY["policy"], algorithm="x", steps=0))
        settings["alphazero.expert"] = f"{path}@4"
    return ExpertIterationRun(tiny_config(**settings), folder / case, progress=False, log=quiet)


def facts(case: str) -> dict:
    """What ``ITERATIONS`` iterations (play_games, then learn) of ``case``'s run give."""
    with tempfile.TemporaryDirectory() as folder:
        run = new_run(case, Path(folder))
        iterations = []
        for iteration in range(ITERATIONS):
            chunk = run.play_games()
            run.buffer.add(chunk, f"iteration_{iteration + 1:06d}.npz")
            observations = np.ascontiguousarray(chunk["observations"], dtype=np.float32)
            iterations.append({
                "observations": [list(observations.shape), hashlib.sha256(observations.tobytes()).hexdigest()[:16]],
                "offsets": chunk["offsets"].tolist(),
                "actions": chunk["actions"].tolist(),
                "shares": [round(float(x), 7) for x in chunk["shares"]],
                "values": [round(float(x), 7) for x in chunk["values"]],
                "opponent_results": run.opponent_results,
                "learn": run.learn(len(chunk["values"])),
            })
            run.iteration += 1
        weights = {name: [list(tensor.shape), float(tensor.double().sum()), float(tensor.double().abs().sum())]
                   for name, tensor in sorted(run.policy.state_dict().items())}
    return {"case": case, "settings": CASES[case], "iterations": iterations, "weights": weights}


def write(case: str) -> None:
    data = facts(case)
    lines = ["{", f'  "command": {json.dumps(COMMAND)},', f'  "case": {json.dumps(case)},',
             f'  "settings": {json.dumps(data["settings"], sort_keys=True)},', '  "iterations": [']
    for index, iteration in enumerate(data["iterations"]):
        lines.append("    {")
        lines += [f"      {json.dumps(key)}: {json.dumps(value, sort_keys=True)}," for key, value in iteration.items()]
        lines[-1] = lines[-1].rstrip(",")
        lines.append("    }" + ("," if index < len(data["iterations"]) - 1 else ""))
    lines.append("  ],")
    lines.append('  "weights": {')
    lines += [f"    {json.dumps(name)}: {json.dumps(value)}," for name, value in data["weights"].items()]
    lines[-1] = lines[-1].rstrip(",")
    lines += ["  }", "}"]
    file_path(case).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    for name in CASES:
        write(name)
        print("wrote", file_path(name))
