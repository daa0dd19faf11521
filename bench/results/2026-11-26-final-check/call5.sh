#!/usr/bin/env bash
# Device call 5 (one H200): with the read-counted planner budget, the 10^9-edge graph's
# sparse_8_1 mapped and copied (call 3 saw it take another plan, 7x slower, when mapped).
set -u
O=$OUT; R=/tmp/r5; mkdir -p $R
b=.device-bin; sg=$b/subgraph
g=/tmp/rmat-256.sgb
timeout 240 $sg gen graph --model rmat --vertices 67108864 --edges 1000000000 --vertex-labels 256 \
    --label-dist uniform --seed 7 --output $g > $R/gen.txt 2>&1
timeout 60 $sg gen queries $g --size 8 --count 3 --kind sparse --seed 3 --output /tmp/q/sparse-8 >> $R/gen.txt 2>&1
qs="/tmp/q/sparse-8/query_sparse_8_1.graph /tmp/q/sparse-8/query_sparse_8_3.graph"
for m in on off on off; do
  # shellcheck disable=SC2086
  timeout 100 $sg match -q --format json --device gpu --gpu-filter refined --mmap $m --timeout 12 $g $qs >> $R/match-gpu-$m.jsonl 2>> $R/match-gpu-$m.err
done
tar czf $O/call5.tgz -C $R .
