#!/usr/bin/env bash
cd "$(dirname "$0")/../../.."  # the repository root; the framework at /tmp/slbin (see 2026-11-26-plan-probe.md)
for d in wordnet yeast hprd; do
  if [ $d = wordnet ]; then cls="dense_4 dense_8 dense_12 dense_16 dense_20 sparse_8 sparse_12 sparse_16 sparse_20"; else cls="dense_4 dense_8 dense_16 sparse_8 sparse_16"; fi
  for c in $cls; do
    qs=$(ls ../shared/data/$d/query_graph/query_${c}_*.graph | sort -V | head -n 200)
    LIMIT=100000 TIMEOUT=5 bench/sunluo.sh /tmp/slbin/SubgraphMatching.out ../shared/data/$d/data_graph/$d.graph bench/results/2026-11-26-lazy-space/local/$d-$c.csv $qs
  done
done
