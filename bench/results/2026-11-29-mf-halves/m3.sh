#!/bin/bash
# Device call M3: issue 40's build speed (helper's script), then issue 41's halves after the
# no-spin wait and the one-run GPU-alone epoch.
set -u
B=$PWD/.device-bin/subgraph; S=$PWD/.device-bin/summ.py
exec > >(tee -a $OUT/log.txt) 2>&1
date -u
echo "== ANN build speed"; timeout 230 bash bench/ann/build-speed.sh $B /tmp/annout; tar czf $OUT/ann.tgz -C /tmp annout; rm -rf /tmp/ann
mkdir -p /tmp/runs; cp .device-bin/cost-m2.json /tmp/cost.json
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
echo "== MF GPU tests"; SUBGRAPH_REQUIRE_GPU=1 timeout 60 .device-bin/mf-gpu --test-threads 1 2>&1 | grep "test result"
SUBGRAPH_REQUIRE_GPU=1 timeout 120 .device-bin/mf-gpu-train --test-threads 1 --nocapture halves hsgd auto 2>&1 | grep -E "RMSE|test result|panicked|workers:" | cut -c1-330
timeout 60 $B gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq
D=/tmp/nfq
run() { name=$1; shift; timeout ${T:-100} $B mf train $D/train.txt --test $D/test.txt --threads 16 --cost-model /tmp/cost.json --format json "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; python3 $S /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
E10="--epochs 10 --lr 0.08 --decay 0.3"
run cpu --device cpu $E10
for w in 64 128 256 512 0; do
  run gpu-w$w --device gpu --workers $w $E10
  run halves-w$w --device hybrid --workers $w $E10
done
pack
run halves100 --device hybrid --epochs 100 --lr 0.08 --decay 0.3
run auto100-w128 --device auto --workers 128 --epochs 100 --lr 0.08 --decay 0.3
pack; date -u
