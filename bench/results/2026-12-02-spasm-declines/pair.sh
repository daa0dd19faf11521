#!/bin/bash
# usage: pair.sh TAG ROUNDS BIN...  -> /tmp/p45/TAG-r{round}-{bin index}-{set}.jsonl
T=$1; R=$2; shift 2
cd /work/main
run() { local B=$1 out=$2 data=$3; shift 3; $B match "$data" "$@" -q --format json --device cpu --threads 1 --timeout 10 > $out 2>/dev/null; }
for r in $(seq 1 $R); do
  i=0
  for B in "$@"; do
    run $B /tmp/p45/$T-r$r-$i-yeast.jsonl tests/data/yeast/yeast.graph tests/data/yeast/queries
    run $B /tmp/p45/$T-r$r-$i-hprd.jsonl tests/data/hprd/HPRD.graph tests/data/hprd/queries
    run $B /tmp/p45/$T-r$r-$i-hy.jsonl tests/data/yeast/yeast.graph bench/queries/heavy/yeast
    run $B /tmp/p45/$T-r$r-$i-hh.jsonl tests/data/hprd/HPRD.graph bench/queries/heavy/hprd
    run $B /tmp/p45/$T-r$r-$i-hr.jsonl /tmp/rmat16k.graph bench/queries/heavy/rmat16k
    i=$((i+1))
  done
done
echo done
