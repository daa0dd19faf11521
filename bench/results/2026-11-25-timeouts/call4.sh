#!/usr/bin/env bash
# Variants of dfs.cu's stop polling: A (ce89233: every 256 rows or tails), B (clock-gated, at rows
# and tails), C (clock-gated, every step), D (C without reading the flag; diagnosis only).
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
$B/subgraph-A gen graph --model rmat --vertices 1048576 --edges 16777216 --vertex-labels 2 --label-dist uniform --seed 3 --output /tmp/g.sgb > /dev/null 2>&1
$B/subgraph-A gen queries /tmp/g.sgb --size 8 --count 3 --kind dense --seed 4 --output /tmp/q > /dev/null 2>&1
for round in 1 2; do
for v in A B C D; do
  for g in yeast rmat16k; do
    timeout 60 $B/subgraph-$v match -q --format json --device gpu --timeout 5 $B/$g.graph $B/hq/$g/*.graph > $res/$v-$g-$round.jsonl 2>/dev/null
  done
  [ $round = 1 ] && timeout 60 $B/subgraph-$v match -q --format json --device gpu --timeout 0.3 /tmp/g.sgb /tmp/q/*.graph > $res/$v-timeout.jsonl 2>/dev/null
done
done
tar czf $OUT/results.tgz -C $OUT res
