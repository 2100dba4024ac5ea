"""train.fused_adam / Scala's bfloat16 experiment: three seeds each at the default budget (200k).

Scala: before (float32, per-tensor Adam) against after (configs/scala.yaml: precision auto,
fused Adam). Highrise Heist and Golden Rush: after (their configs, fused Adam), to set
beside the same seeds' bfloat16 runs with the per-tensor Adam (benchmarks/results/precision_2026-12-06/);
Golden Rush also on seeds 4-12, fused (after) and per-tensor (per_tensor).
Run from the repository root:
    python benchmarks/results/fused_adam_2026-12-06/train.py scala highrise_heist golden_rush
    python benchmarks/results/fused_adam_2026-12-06/train.py --seeds 4 5 6 7 8 9 10 11 12 golden_rush
"""
import sys, tempfile, time
from pathlib import Path

sys.path.insert(0, ".")
from training.config import load_config
from training.selfplay import SelfPlayRun
from sky_envs.agents import save_checkpoint

VARIANTS = {"scala": {"before": {"precision": "float32", "fused_adam": False}, "after": {}},
            "highrise_heist": {"after": {}}, "golden_rush": {"after": {}, "per_tensor": {"fused_adam": False}}}
out = Path("runs/fused_adam")
arguments = sys.argv[1:]
seeds = (1, 2, 3)
if arguments[0] == "--seeds":
    numbers = [a for a in arguments[1:] if a.isdigit()]
    seeds, arguments = tuple(int(a) for a in numbers), arguments[1 + len(numbers):]
for env in arguments:
    for seed in seeds:
        for variant, train in VARIANTS[env].items():
            if env == "golden_rush" and variant == "per_tensor" and seed <= 3:
                continue   # seeds 1-3: the precision study's bfloat16 runs

            path = out / env / f"{variant}_s{seed}.pt"
            if path.exists():
                continue
            cfg = load_config(f"configs/{env}.yaml")
            cfg["train"].update(seed=seed, **train)
            with tempfile.TemporaryDirectory() as d:
                run = SelfPlayRun(cfg, d, progress=False, log=lambda *a: None)
                start = time.time()
                run.train()
                path.parent.mkdir(parents=True, exist_ok=True)
                save_checkpoint(path, run.model.policy, run.metadata())
                print(env, variant, seed, run.steps_done, f"{time.time() - start:.1f}s", run.quick_evals[-1], flush=True)
