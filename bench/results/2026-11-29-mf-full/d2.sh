#!/bin/bash
# Device call D2: halves with the timed GPU-alone epoch (Follow) on the full Netflix shape at full
# occupancy and 512 workers; the full Yahoo shape (2.5e8 ratings), every device.
set -u
B=$PWD/.device-bin/subgraph; S=$PWD/.device-bin/summ2.py
exec > >(tee -a $OUT/log.txt) 2>&1
date -u; mkdir -p /tmp/runs; cp .device-bin/cost-m2.json /tmp/cost.json
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
SUBGRAPH_REQUIRE_GPU=1 timeout 45 .device-bin/mf-gpu-train --test-threads 1 --nocapture halves_follow 2>&1 | grep -E "final|test result|panicked|all workers:" | cut -c1-400
run() { name=$1; shift; local t0=$(date +%s); timeout ${T:-60} $B mf train $D/train.txt --test $D/test.txt --cost-model /tmp/cost.json --format json "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; echo "[$name rc $? wall $(( $(date +%s)-t0 )) s]"; python3 $S /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; pack; }
t0=$(date +%s); timeout 60 $B gen ratings --preset netflix --seed 0 --output /tmp/nf; echo "gen $(( $(date +%s)-t0 )) s"
D=/tmp/nf; E="--epochs 6 --lr 0.08 --decay 0.3"
run nf-gpu-w0 --threads 16 --device gpu $E
run nf-halves-w0 --threads 16 --device hybrid $E
run nf-halves-w0-split92-t15 --threads 15 --device hybrid --split 0.92 $E
run nf-halves-w512 --threads 16 --device hybrid --workers 512 $E
rm -rf /tmp/nf; date -u
t0=$(date +%s); timeout 90 $B gen ratings --preset yahoo --seed 0 --output /tmp/y; echo "gen $(( $(date +%s)-t0 )) s"
D=/tmp/y; T=110
run y-cpu --threads 16 --device cpu $E
run y-gpu-w128 --threads 16 --device gpu --workers 128 $E
run y-halves-w128 --threads 16 --device hybrid --workers 128 $E
run y-gpu-w0 --threads 16 --device gpu $E
run y-halves-w0 --threads 16 --device hybrid $E
date -u
