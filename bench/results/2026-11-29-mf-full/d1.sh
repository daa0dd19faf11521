#!/bin/bash
# Device call D1 (2026-11-29 sixth session): Q of halves in page-locked memory against pageable
# (Yahoo shape at 2.5e7, as M4); the full Netflix shape (1e8 ratings), every device.
set -u
B=$PWD/.device-bin/subgraph; BP=$PWD/.device-bin/subgraph-pinned; S=$PWD/.device-bin/summ2.py
exec > >(tee -a $OUT/log.txt) 2>&1
date -u; nproc; mkdir -p /tmp/runs; cp .device-bin/cost-m2.json /tmp/cost.json
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
SUBGRAPH_REQUIRE_GPU=1 timeout 45 .device-bin/mf-gpu-train-pinned --test-threads 1 --nocapture halves_follow 2>&1 | grep -E "final|test result|panicked" | cut -c1-200
run() { name=$1; bin=$2; shift 2; local t0=$(date +%s); timeout ${T:-60} $bin mf train $D/train.txt --test $D/test.txt --threads 16 --cost-model /tmp/cost.json --format json "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; echo "[$name rc $? wall $(( $(date +%s)-t0 )) s]"; python3 $S /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
E="--epochs 8 --lr 0.08 --decay 0.3"
timeout 30 $B gen ratings --preset yahoo --ratings 25000000 --seed 0 --output /tmp/yq
D=/tmp/yq
run y-cpu $B --device cpu $E
run y-gpu-w128 $B --device gpu --workers 128 $E
for rep in 1 2; do
  run y-halves-w128-pageable-$rep $B --device hybrid --workers 128 $E
  run y-halves-w128-pinned-$rep $BP --device hybrid --workers 128 $E
done
run y-halves-w0-pageable $B --device hybrid $E
run y-halves-w0-pinned $BP --device hybrid $E
pack; rm -rf /tmp/yq; date -u
t0=$(date +%s); timeout 90 $B gen ratings --preset netflix --seed 0 --output /tmp/nf; echo "gen $(( $(date +%s)-t0 )) s"
D=/tmp/nf; E="--epochs 6 --lr 0.08 --decay 0.3"
T=90 run nf-cpu $B --device cpu $E
run nf-gpu-w128 $B --device gpu --workers 128 $E
run nf-halves-w128-pageable $B --device hybrid --workers 128 $E
run nf-halves-w128-pinned $BP --device hybrid --workers 128 $E
run nf-gpu-w512 $B --device gpu --workers 512 $E
run nf-halves-w512-pinned $BP --device hybrid --workers 512 $E
run nf-gpu-w0 $B --device gpu $E
run nf-halves-w0-pinned $BP --device hybrid $E
pack; date -u
