#!/usr/bin/env bash
# CPU engine scaling: runs each query with 1, 2, 4, ... threads up to the machine's cores
# (count only, no limit) and prints `query,threads,embeddings,elapsed_ms,enumerate_ms,speedup,
# enumerate_speedup` rows, the speed-ups taken against the 1-thread run of the same query. The
# counts must agree. SCALING_FLAGS adds match flags (e.g. `--order gql --tail off`, so that every
# thread count runs the same plan: the planner's budget grows with the threads).
# Usage: scripts/cpu-scaling.sh SUBGRAPH_BINARY DATA QUERY...
set -euo pipefail
bin=$1 data=$2
shift 2
cores=$(nproc)
echo "query,threads,embeddings,elapsed_ms,enumerate_ms,speedup,enumerate_speedup"
for q in "$@"; do
    base= ebase= count=
    t=1
    while [ "$t" -le "$cores" ]; do
        # shellcheck disable=SC2086
        line=$("$bin" match -q --format json --device cpu --threads "$t" ${SCALING_FLAGS:-} "$data" "$q")
        emb=$(sed -n 's/.*"embeddings":\([0-9]*\).*/\1/p' <<<"$line")
        ms=$(sed -n 's/.*"elapsed_ms":\([0-9.e+-]*\).*/\1/p' <<<"$line")
        ems=$(sed -n 's/.*"enumerate_ms":\([0-9.e+-]*\).*/\1/p' <<<"$line")
        [ -z "$count" ] && count=$emb
        [ "$emb" = "$count" ] || { echo "count differs at $t threads: $emb vs $count" >&2; exit 1; }
        [ -z "$base" ] && base=$ms ebase=$ems
        echo "$(basename "$q"),$t,$emb,$ms,$ems,$(awk -v a="$base" -v b="$ms" 'BEGIN{printf "%.2f", a/b}'),$(awk -v a="$ebase" -v b="$ems" 'BEGIN{printf "%.2f", a/b}')"
        t=$((t * 2))
    done
done
