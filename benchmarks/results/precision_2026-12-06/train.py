"""train.precision experiment: the default configs of Highrise Heist and Golden Rush, float32
against bfloat16, three seeds each, 200k steps (the default budget)."""
import sys, tempfile, time
from pathlib import Path
from training.config import load_config
from training.selfplay import SelfPlayRun
from sky_envs.agents import save_checkpoint

out = Path("runs/precision")
for env in sys.argv[1:]:
    for seed in (1, 2, 3):
        for precision in ("float32", "bfloat16"):
            path = out / env / f"{precision}_s{seed}.pt"
            if path.exists():
                continue
            cfg = load_config(f"configs/{env}.yaml")
            cfg["train"].update(seed=seed, precision=precision)
            with tempfile.TemporaryDirectory() as d:
                run = SelfPlayRun(cfg, d, progress=False, log=lambda *a: None)
                start = time.time()
                run.train()
                path.parent.mkdir(parents=True, exist_ok=True)
                save_checkpoint(path, run.model.policy, run.metadata())
                print(env, precision, seed, run.steps_done, f"{time.time() - start:.1f}s", run.quick_evals[-1], flush=True)
