#!/bin/bash
# each run against greedy and random, 200 games each, seed 7000 (as the precision study):
#   bash eval.sh            seeds 1-3 of Scala, Highrise Heist and Golden Rush
#   bash eval.sh seeds456   Golden Rush's seeds 4-6 (train.py --seeds 4 5 6 golden_rush)
#   bash eval.sh seeds7to12 Golden Rush's seeds 7-12
cd "$(git rev-parse --show-toplevel)"
evaluate() {   # env, report stem, seeds...
  local env=$1 stem=$2 d=runs/fused_adam/$1 agents="" pairs="" seed a
  shift 2
  for seed in "$@"; do agents="$agents $(ls $d/*_s$seed.pt)"; done
  agents=$(echo $agents | tr ' ' '\n' | sort)
  for a in $agents; do n=$(basename $a .pt); pairs="$pairs $n:greedy $n:random"; done
  python -m training.evaluate --env ${env}_v0 --agents $agents greedy random \
     --pairings $pairs --games 200 --seed 7000 --workers 2 --out $d/eval --stem $stem --resume > $d/$stem.log 2>&1
}
case "$1" in
  seeds456) evaluate golden_rush vs_baselines_seeds456 4 5 6 ;;
  seeds7to12) evaluate golden_rush vs_baselines_seeds7to12 7 8 9 10 11 12 ;;
  *) for env in scala highrise_heist golden_rush; do evaluate $env vs_baselines 1 2 3; done ;;
esac
