import sys
from pathlib import Path
from benchmarks.solved_positions import Recipe, make_set
recipe = Recipe("stacks", 8, 18, per_game=5, max_nodes=3_000_000, compiled=True,
                pairings=(("pretrained", "greedy"), ("mcts@20", "pretrained"), ("greedy", "mcts@20")))
make_set("sky_scrapers_v0", int(sys.argv[1]), Path("/work/runs/endgame/train.jsonl"), seed=1_000_000, recipe=recipe,
         log=lambda text: print(text, flush=True))
