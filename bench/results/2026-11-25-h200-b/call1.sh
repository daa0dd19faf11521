#!/usr/bin/env bash
# Session 2026-11-25b call 1: CPU scaling new (aligned worker slots) vs old (071704e), then the GPU suite.
set -uo pipefail
b=.device-bin
o=$OUT/r; mkdir -p $o
lscpu > $o/lscpu.txt 2>&1; nproc >> $o/lscpu.txt
heavy() { # BIN FLAGS
  for pair in wordnet/query_dense_12_9 wordnet/query_dense_8_3 rmat16k/query_dense_10_3; do
    g=${pair%%/*}; d=$b/sets/$g/$g.graph; [ "$g" = rmat16k ] && d=$b/rmat16k.graph
    SCALING_FLAGS="$2" $b/cpu-scaling.sh $1 $d $b/heavy-queries/$pair.graph
  done
}
for rep in 1 2; do
  for v in subgraph subgraph-old; do
    heavy $b/$v "" > $o/scaling-heavy-$v-$rep.csv 2>&1
    heavy $b/$v "--order gql --tail off" > $o/scaling-heavy-fixed-$v-$rep.csv 2>&1
    $b/cpu-scaling.sh $b/$v $b/sets/yeast/yeast.graph $b/sets/scaling-*.graph > $o/scaling-yeast-$v-$rep.csv 2>&1
  done
done
echo "scaling done $(date)" >> $o/lscpu.txt
OUT=$o timeout 400 scripts/gpu-suite.sh run > $o/suite-stdout.txt 2>&1; echo "suite rc=$?" >> $o/suite-stdout.txt
tail -3 $o/gpu-suite.log >> $o/suite-stdout.txt 2>/dev/null
tar czf $OUT/call1.tgz -C $OUT r && rm -rf $o
