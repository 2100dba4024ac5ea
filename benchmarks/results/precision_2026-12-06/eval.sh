#!/bin/bash
# each precision's three seeds against greedy and random, 200 games each, seed 7000
cd "$(git rev-parse --show-toplevel)"
for env in highrise_heist golden_rush; do
  d=runs/precision/$env
  pairs=""
  for p in float32 bfloat16; do for s in 1 2 3; do pairs="$pairs ${p}_s$s:greedy ${p}_s$s:random"; done; done
  python -m training.evaluate --env ${env}_v0 --agents $d/float32_s{1,2,3}.pt $d/bfloat16_s{1,2,3}.pt greedy random \
     --pairings $pairs --games 200 --seed 7000 --workers 2 --out $d/eval --stem vs_baselines --resume > $d/eval.log 2>&1
done
echo done >> runs/precision/train.log
