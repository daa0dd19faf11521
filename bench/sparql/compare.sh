#!/usr/bin/env bash
# subgraph against Oxigraph on the same N-Triples file and patterns (issue 10):
#   bench/sparql/compare.sh DATA.nt PATTERNS.txt OUT_DIR
# from the repository root, after `cargo build --release` here and in bench/sparql. Each pattern
# (one per line of PATTERNS.txt, `RETURN count(*)`) is counted RUNS times (default 3) by
# `subgraph match` on every DEVICES entry (default: cpu1 (one thread) and cpu (all cores); add
# gpu on a GPU machine), on the file converted once to .sgb, and by Oxigraph (bench/sparql's
# sparql-bench, in-memory store, SPARQL SELECT COUNT(*)); TIMEOUT seconds (default 60) per
# pattern. Writes OUT_DIR/{subgraph-DEVICE,oxigraph}.jsonl and prints a markdown table: counts
# (which must be equal), median ms per side, and the ratios.
set -euo pipefail
data=$1 patterns=$2 out=$3
runs=${RUNS:-3} t=${TIMEOUT:-60}
sg=${SUBGRAPH:-target/release/subgraph}
sb=${SPARQL_BENCH:-bench/sparql/target/release/sparql-bench}
mkdir -p "$out"
"$sg" convert "$data" "$out/data.sgb"
mapfile -t pats < <(grep -v '^[[:space:]]*#' "$patterns" | grep -v '^[[:space:]]*$')
args=()
for p in "${pats[@]}"; do for _ in $(seq "$runs"); do args+=(--pattern "$p"); done; done
for dev in ${DEVICES:-cpu1 cpu}; do
    flags=(--device "${dev%1}")
    [ "$dev" = cpu1 ] && flags+=(--threads 1)
    "$sg" match "${flags[@]}" --format json -q --timeout "$t" "$out/data.sgb" "${args[@]}" >"$out/subgraph-$dev.jsonl"
done
: >"$out/oxigraph.jsonl"
skip=0
while :; do
    rc=0
    "$sb" "$data" "$patterns" --runs "$runs" --timeout "$t" --skip "$skip" >>"$out/oxigraph.jsonl" || rc=$?
    [ "$rc" = 3 ] || break
    skip=$(wc -l <"$out/oxigraph.jsonl")
done
[ "$rc" = 0 ] || exit "$rc"
python3 "$(dirname "$0")/table.py" "$out" "$runs" ${DEVICES:-cpu1 cpu}
