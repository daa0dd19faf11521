#!/bin/bash
# Device call M2 (issue 41): the kernel's workers on even runs of chunks; halves again.
set -u
B=$PWD/.device-bin/subgraph; S=$PWD/.device-bin/summ.py
exec > >(tee -a $OUT/log.txt) 2>&1
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
date -u; mkdir -p /tmp/runs; cp .device-bin/cost-m1.json /tmp/cost.json
echo "== GPU tests"; SUBGRAPH_REQUIRE_GPU=1 timeout 60 .device-bin/mf-gpu --test-threads 1 2>&1 | grep "test result"
SUBGRAPH_REQUIRE_GPU=1 timeout 150 .device-bin/mf-gpu-train --test-threads 1 --nocapture halves hsgd alone 2>&1 | grep -E "RMSE|test result|panicked|workers, split" | cut -c1-400
timeout 60 $B gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq
D=/tmp/nfq
run() { name=$1; shift; timeout ${T:-100} $B mf train $D/train.txt --test $D/test.txt --threads 16 --cost-model /tmp/cost.json --format json "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; python3 $S /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
E10="--epochs 10 --lr 0.08 --decay 0.3"
run cpu --device cpu $E10
for w in 64 128 256 512 0; do
  run gpu-w$w --device gpu --workers $w $E10
  run halves-w$w --device hybrid --schedule halves --workers $w $E10
done
run star-w128 --device hybrid --workers 128 $E10
pack; echo "== 100 epochs"
E100="--epochs 100 --lr 0.08 --decay 0.3"
run gpu100-half --device gpu --half $E100
run gpu100 --device gpu $E100
run halves100 --device hybrid --schedule halves $E100
run halves100-w128 --device hybrid --schedule halves --workers 128 $E100
pack; cp /tmp/cost.json $OUT/; date -u
