#!/bin/bash
# Device call D4: the MF GPU tests at 17763d8 (one block loop, the timed GPU-alone epoch), and the
# cost model refitted with prefixes up to 2^24 (Netflix shape at 2.5e7, 128 workers): its
# predicted split against the balance the measured speeds give.
set -u
B=$PWD/.device-bin/subgraph; S=$PWD/.device-bin/summ2.py
exec > >(tee -a $OUT/log.txt) 2>&1
date -u; mkdir -p /tmp/runs
SUBGRAPH_REQUIRE_GPU=1 timeout 60 .device-bin/mf-gpu --test-threads 1 2>&1 | grep -E "test |test result|panicked" | cut -c1-200
timeout 30 $B gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq
D=/tmp/nfq
for w in 128; do
  name=refit-w$w
  timeout 60 $B mf train $D/train.txt --test $D/test.txt --threads 16 --cost-model /tmp/cost.json --refit --format json --device hybrid --workers $w --epochs 5 --lr 0.08 --decay 0.3 > /tmp/runs/$name.jsonl 2>/tmp/err.txt; echo "[$name rc $?]"
  python3 $S /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1
done
cp /tmp/cost.json $OUT/cost-d4.json; tar czf $OUT/runs.tgz -C /tmp runs; date -u
SUBGRAPH_REQUIRE_GPU=1 timeout 100 .device-bin/mf-gpu-train --test-threads 1 --nocapture 2>&1 | grep -E "^test |final|test result|panicked" | cut -c1-200
date -u
