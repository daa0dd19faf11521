#!/bin/bash
# Device call M4: the halves GPU test; the Yahoo shape at 2.5e7 ratings (10^6 x 6.10^5).
set -u
B=$PWD/.device-bin/subgraph; S=$PWD/.device-bin/summ.py
exec > >(tee -a $OUT/log.txt) 2>&1
date -u; mkdir -p /tmp/runs; cp .device-bin/cost-m2.json /tmp/cost.json
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
SUBGRAPH_REQUIRE_GPU=1 timeout 60 .device-bin/mf-gpu-train --test-threads 1 --nocapture halves_follow 2>&1 | grep -E "final|test result|panicked|workers:" | cut -c1-300
timeout 60 $B gen ratings --preset yahoo --ratings 25000000 --seed 0 --output /tmp/yq
D=/tmp/yq
run() { name=$1; shift; timeout ${T:-60} $B mf train $D/train.txt --test $D/test.txt --threads 16 --cost-model /tmp/cost.json --format json "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; python3 $S /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
E10="--epochs 8 --lr 0.08 --decay 0.3"
run y-cpu --device cpu $E10
for w in 128 0; do
  run y-gpu-w$w --device gpu --workers $w $E10
  run y-halves-w$w --device hybrid --schedule halves --workers $w --epochs 8 --lr 0.08 --decay 0.3
done
pack; date -u
