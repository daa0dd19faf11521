#!/usr/bin/env bash
# One-thread enumeration time (median [min-max] of REPS runs) of two builds on five heavy queries.
# Usage: one-thread.sh OLD_BINARY NEW_BINARY REPS (from the repository root).
set -euo pipefail
old=$1 new=$2 reps=$3
Y=../shared/data/yeast/data_graph/yeast.graph; W=../shared/data/wordnet/data_graph/wordnet.graph; R=bench/work/rmat16k.graph
for pair in "$R bench/queries/heavy/rmat16k/query_dense_10_3.graph" "$Y bench/queries/heavy/yeast/query_sparse_10_6.graph" "$Y bench/queries/heavy/yeast/query_dense_10_5.graph" "$W bench/queries/heavy/wordnet/query_dense_12_9.graph" "$R bench/queries/heavy/rmat16k/query_dense_8_5.graph"; do
    set -- $pair
    line="$(basename "$2")"
    for b in "$old" "$new"; do
        ms=$(for i in $(seq 1 "$reps"); do "$b" match "$1" "$2" --device cpu --threads 1 -q --format json | sed -n 's/.*"enumerate_ms":\([0-9.]*\).*/\1/p'; done | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)] " [" a[1] "-" a[NR] "]"}')
        line="$line $(basename "$b")=$ms"
    done
    echo "$line"
done
