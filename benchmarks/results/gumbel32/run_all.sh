#!/bin/bash
# pretrained@32+gumbel vs mcts@400 per shipped agent, seed 200000 (the reports' are 0 and 1), one game at a time.
# Runs the code of the commit that started it (git archive into /tmp/gumbel_frozen); reports go to OUT.
cd /tmp/gumbel_frozen
OUT=/work/wt/gumbel/benchmarks/results/gumbel32
run() {  # env config games
  echo "$(date -u +%FT%TZ) start $1" >> $OUT/times.log
  python -m training.evaluate --config $2 --agents pretrained@32+gumbel mcts@400 --pairings pretrained@32+gumbel:mcts@400 \
    --games $3 --seed 200000 --workers 1 --out $OUT --stem $1 --resume
  echo "$(date -u +%FT%TZ) end $1 rc=$?" >> $OUT/times.log
}
# done: run skybridge_v0 configs/skybridge.yaml 200
# done: run sky_scrapers_v0 configs/recipes/sky_scrapers_v0/3_symmetries.yaml 200
# done: run scala_v0 configs/recipes/scala_v0/2_finetune_vs_greedy.yaml 200
run highrise_heist_v0 configs/highrise_heist.yaml 200
run golden_rush_v0 configs/golden_rush.yaml 200
run sky_towers_v0 configs/sky_towers.yaml 200
