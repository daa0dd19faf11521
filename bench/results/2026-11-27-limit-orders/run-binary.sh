#!/bin/bash
# OUT=DIR run-binary.sh NAME BINARY DATASET...   # the binary's defaults: the first 50 queries (by number) of every class of each Sun & Luo DATASET, one thread, --limit 100000 --timeout 5, appended to $OUT/NAME.jsonl
cd "$(dirname "$0")/../../.."
n=$1; bin=$2; shift 2
for ds in "$@"; do
  G=../shared/data/$ds/data_graph/$ds.graph
  for c in $(ls ../shared/data/$ds/query_graph | sed 's/_[0-9]*.graph//' | sort -u); do
    Q=$(ls ../shared/data/$ds/query_graph/${c}_*.graph | sort -V | head -50)
    timeout 900 $bin match -q --format json --threads 1 --limit 100000 --timeout 5 $G $Q >> $OUT/$n.jsonl 2>/dev/null
  done
done
echo done >> $OUT/$n.done
