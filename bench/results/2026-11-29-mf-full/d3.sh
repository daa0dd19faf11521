#!/bin/bash
# Device call D3: issue 40's CPU search on the host's 16 cores against hnswlib (bench/ann/cpu16.sh),
# then the full Yahoo shape's halves at full occupancy (D2 ran out of time before it).
set -u
mkdir -p $OUT/ann
ROUNDS=2 RUNS=2 EFS=16,24,32,48,64,96,128,256 timeout 330 bash bench/ann/cpu16.sh .device-bin/subgraph .device-bin/ann_probe $OUT/ann
tar czf $OUT/ann.tgz -C $OUT ann && rm -rf $OUT/ann
B=$PWD/.device-bin/subgraph; S=$PWD/.device-bin/summ2.py
exec > >(tee -a $OUT/log.txt) 2>&1
date -u; mkdir -p /tmp/runs; cp .device-bin/cost-m2.json /tmp/cost.json
t0=$(date +%s); timeout 60 $B gen ratings --preset yahoo --seed 0 --output /tmp/y; echo "gen $(( $(date +%s)-t0 )) s"
D=/tmp/y; name=y-halves-w0
timeout 100 $B mf train $D/train.txt --test $D/test.txt --cost-model /tmp/cost.json --format json --threads 16 --device hybrid --epochs 6 --lr 0.08 --decay 0.3 > /tmp/runs/$name.jsonl 2>/tmp/err.txt; echo "[$name rc $?]"
python3 $S /tmp/runs/$name.jsonl $name; tail -2 /tmp/err.txt; cp /tmp/runs/$name.jsonl $OUT/
date -u
