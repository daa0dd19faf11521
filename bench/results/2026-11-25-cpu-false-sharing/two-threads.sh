#!/usr/bin/env bash
# Two-thread enumeration times of two builds, 20 runs each, interleaved in blocks of 20.
# Usage: two-threads.sh OLD_BINARY NEW_BINARY (run from the repository root; bench/work/rmat16k.graph
# made as bench/queries/heavy/README.md says).
set -euo pipefail
Y=../shared/data/yeast/data_graph/yeast.graph
R=bench/work/rmat16k.graph
for pair in "$R bench/queries/heavy/rmat16k/query_dense_10_3.graph" "$Y bench/queries/heavy/yeast/query_sparse_10_6.graph"; do
    set -- $pair
    for rep in 1 2; do
        for b in "$OLD" "$NEW"; do
            printf '%s %s %s:' "$(basename "$2")" "$rep" "$(basename "$b")"
            for i in $(seq 1 20); do
                "$b" match "$1" "$2" --device cpu --threads 2 -q --format json | sed -n 's/.*"enumerate_ms":\([0-9]*\).*/ \1/p' | tr -d '\n'
            done
            echo
        done
    done
done
