#!/bin/bash
T=$1; shift
cd /work/main
Y=/work/shared/data/yeast
run() { local B=$1 out=$2 data=$3; shift 3; $B match "$data" "$@" -q --format json --device cpu --threads 1 --timeout 5 > $out 2>/dev/null; }
i=0
for B in "$@"; do
  run $B /tmp/p45/$T-$i-yeast.jsonl $Y/data_graph/yeast.graph /tmp/yfast
  run $B /tmp/p45/$T-$i-hr.jsonl /tmp/rmat16k.graph bench/queries/heavy/rmat16k
  run $B /tmp/p45/$T-$i-hy.jsonl tests/data/yeast/yeast.graph bench/queries/heavy/yeast
  run $B /tmp/p45/$T-$i-wn.jsonl /work/shared/data/wordnet/data_graph/wordnet.graph /tmp/wsub
  i=$((i+1))
done
echo done
