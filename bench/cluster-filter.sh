#!/usr/bin/env bash
# Issue 42's filtered-candidates slice against one host and against the first slice, on yeast in
# 6 parts by hash: for each query, one host (CPU, 1 thread) and the cluster with 1 and 2 local
# processes of 1 thread (and 1 process of 2 threads), default order and --order ri, each run
# RUNS times. Prints one JSON line a run (binary, query, run, record fields).
#   bench/cluster-filter.sh NEW_BINARY [OLD_BINARY] > runs.jsonl
set -euo pipefail
new=$1
old=${2:-}
runs=${RUNS:-3}
limit=${LIMIT:-150}
y=tests/data/yeast
parts=$(mktemp -d)
"$new" partition "$y/yeast.graph" --parts 6 --output "$parts" >&2
one() { # label binary args...
    local label=$1 bin=$2
    shift 2
    for r in $(seq "$runs"); do
        if out=$(timeout "$limit" "$bin" "$@" --format json -q 2>/dev/null); then
            echo "$out" | python3 -c "import json,sys; r=json.loads(sys.stdin.readline()); r.update(label='$label', run=$r); print(json.dumps(r))"
        else
            echo "{\"label\": \"$label\", \"run\": $r, \"timeout_s\": $limit, \"query\": \"$*\"}"
            break
        fi
    done
}
for q in sparse_16_101 dense_16_56 dense_16_81; do
    qf=$y/queries/query_$q.graph
    one "one host" "$new" match "$y/yeast.graph" "$qf" --device cpu --threads 1
    for order in gql ri; do
        for p in 1 2; do
            one "cluster $order ${p}x1" "$new" match "$parts/manifest.json" "$qf" --local-processes "$p" --threads 1 --order "$order"
            [ -n "$old" ] && one "first slice $order ${p}x1" "$old" match "$parts/manifest.json" "$qf" --local-processes "$p" --order "$order"
        done
        one "cluster $order 1x2" "$new" match "$parts/manifest.json" "$qf" --local-processes 1 --threads 2 --order "$order"
    done
done
rm -rf "$parts"
