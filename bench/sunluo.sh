#!/usr/bin/env bash
# Query by query against the Sun & Luo framework (RapidsAtHKUST/SubgraphMatching), one thread.
#
#   bench/sunluo.sh FRAMEWORK DATA OUT.csv QUERY...
#
# FRAMEWORK is the framework's SubgraphMatching.out (built outside this repository; the build
# command is in each result's notes), run once per query as
#   FRAMEWORK -d DATA -q QUERY -filter GQL -order GQL -engine LFTJ -num LIMIT
# under `timeout TIMEOUT`, taking its reported `Total time` (filter, index, order, enumeration;
# loading excluded) and `#Embeddings`. Ours: one `subgraph match -q --format json --threads 1`
# over all the queries (the data graph loaded once), taking `elapsed_ms` (loading excluded).
# OUT.csv gets one line per query:
#   query,framework_ms,framework_embeddings,framework_done,ours_ms,ours_embeddings,ours_done
# (`done` is 1 when the run finished or reached the limit, 0 on a timeout).
# Environment: LIMIT (embeddings; default MAX, every one), TIMEOUT (seconds per query, default
# 10), SUBGRAPH (default target/release/subgraph), OURS_FLAGS (extra flags for ours, e.g.
# "--symmetry off"), INTERLEAVE (1: ours runs once per query, right after the framework's run
# of it, so that both see the same moment of a host whose speed drifts; default 0).
# Summaries: bench/sunluo-summary.py OUT.csv...
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,20p' "$0" >&2; exit 2; }
fw=$1 data=$2 out=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
sg=${SUBGRAPH:-$root/target/release/subgraph}
limit=${LIMIT:-MAX}
t=${TIMEOUT:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ours_limit=()
[ "$limit" = MAX ] || ours_limit=(--limit "$limit")
ours() {
    # shellcheck disable=SC2086
    "$sg" match -q --format json --threads 1 --timeout "$t" "${ours_limit[@]}" ${OURS_FLAGS:-} "$data" "$@" \
        >>"$tmp/ours.jsonl" 2>>"$tmp/ours.err" || true
}
[ "${INTERLEAVE:-0}" = 1 ] || ours "$@"

echo "query,framework_ms,framework_embeddings,framework_done,ours_ms,ours_embeddings,ours_done" >"$out"
for q in "$@"; do
    log=$tmp/fw.txt
    if timeout "$t" "$fw" -d "$data" -q "$q" -filter GQL -order GQL -engine LFTJ -num "$limit" >"$log" 2>&1; then
        fms=$(awk -F': ' '/^Total time/ {printf "%.3f", $2 * 1000}' "$log")
        femb=$(awk -F': ' '/^#Embeddings/ {print $2}' "$log")
        fdone=1
    else
        fms=$((t * 1000)) femb= fdone=0
    fi
    [ "${INTERLEAVE:-0}" = 1 ] && ours "$q"
    ours=$(grep -F "\"query\":\"$q\"," "$tmp/ours.jsonl" | head -n 1 || true)
    oms=$(grep -o '"elapsed_ms":[0-9.e+-]*' <<<"$ours" | cut -d: -f2)
    oemb=$(grep -o '"embeddings":[0-9]*' <<<"$ours" | head -n 1 | cut -d: -f2)
    ostop=$(grep -o '"stopped":[a-z"]*' <<<"$ours" | cut -d: -f2)
    odone=1
    [ "$ostop" = '"timeout"' ] && odone=0
    echo "$q,$fms,$femb,$fdone,$oms,$oemb,$odone" >>"$out"
done
