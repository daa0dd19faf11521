#!/bin/bash
# OUT=DIR run-order.sh ORDER DATASET...   # --order ORDER, target/release/subgraph: the first 50 queries (by number) of every class of each Sun & Luo DATASET, one thread, --limit 100000 --timeout 5, appended to $OUT/NAME.jsonl
cd "$(dirname "$0")/../../.."
o=$1; shift
for ds in "$@"; do
  G=../shared/data/$ds/data_graph/$ds.graph
  for c in $(ls ../shared/data/$ds/query_graph | sed 's/_[0-9]*.graph//' | sort -u); do
    Q=$(ls ../shared/data/$ds/query_graph/${c}_*.graph | sort -V | head -50)
    timeout 900 target/release/subgraph match -q --format json --threads 1 --limit 100000 --timeout 5 --order $o $G $Q >> $OUT/$o.jsonl 2>/dev/null
  done
done
echo done >> $OUT/$o.done
