#!/usr/bin/env bash
# GGQ's thread-ID enumeration against the general GPU join and the CPU, in GGQ's benchmark
# shape (issue 10: GRR-like RDF, paths of 4-5 nodes, trees of 6 and 11):
#   bench/ggq-ids.sh run OUT    on the GPU machine, after `bench/gpu-bench.sh build` here:
#       generates GRR-like RDF of UNIVERSITIES (default "55 260": GGQ's 125 MB and 600 MB
#       documents) with `subgraph gen rdf`, converts it to .sgb, and matches the 17 tree
#       patterns of bench/queries/grr/patterns.txt in four answer forms:
#         count     RETURN count(*)
#         rows      RETURN * (every named vertex), written to /dev/null as CSV (the vertices'
#                   IRIs), at most ROWS_LIMIT (default 10^7) rows
#         distinct  RETURN DISTINCT of the pattern's first and last variables
#         exists    RETURN * LIMIT 1 (GGQ's existence test)
#       each RUNS times (default 3; the first run of a pattern pays GGQ's stream build) in one
#       `subgraph match` per variant, TIMEOUT s (default 20) per pattern:
#         ggq   --gpu-strategy ggq (GGQ's thread IDs for every form, count(*) included)
#         gsi   --gpu-strategy gsi --tree-count off (the general GPU join)
#         auto  the defaults (tree passes where no row is enumerated; else GGQ's thread IDs
#               where estimated cheaper, or the general join)
#         cpu   --device cpu --tree-count off (all cores)
#       FORMS and VARIANTS pick among them. Writes $OUT/ggq-U-FORM-VARIANT.jsonl and .err (the notes: phases, thread IDs).
#   bench/ggq-ids.sh table OUT  here or there: bench/ggq-ids-table.py over $OUT.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sg="$root/.device-bin/subgraph"
cmd=${1:?run or table} out=${2:?OUT}
if [ "$cmd" = table ]; then
    exec python3 "$root/bench/ggq-ids-table.py" "$out"
fi
mkdir -p "$out"
runs=${RUNS:-3} t=${TIMEOUT:-20} limit=${ROWS_LIMIT:-10000000}
for u in ${UNIVERSITIES:-55 260}; do
    data=/tmp/grr$u
    [ -f "$data.sgb" ] || { "$sg" gen rdf --universities "$u" --seed 1 --output "$data.nt" && "$sg" convert "$data.nt" "$data.sgb"; }
    for form in ${FORMS:-count rows distinct exists}; do
        mapfile -t pats < <(python3 "$root/bench/ggq-ids-table.py" --patterns "$root/bench/queries/grr/patterns.txt" "$form")
        args=()
        for p in "${pats[@]}"; do for _ in $(seq "$runs"); do args+=(--pattern "$p"); done; done
        extra=()
        [ "$form" = rows ] && extra=(--output /dev/null --output-format csv --limit "$limit")
        for v in ${VARIANTS:-ggq gsi auto cpu}; do
            case $v in
                ggq) flags=(--device gpu --gpu-strategy ggq) ;;
                gsi) flags=(--device gpu --gpu-strategy gsi --tree-count off) ;;
                auto) flags=(--device gpu) ;;
                cpu) flags=(--device cpu --tree-count off) ;;
            esac
            "$sg" match "${flags[@]}" "${extra[@]}" --format json -q --timeout "$t" "$data.sgb" "${args[@]}" \
                >"$out/ggq-$u-$form-$v.jsonl" 2>"$out/ggq-$u-$form-$v.err" || true
        done
    done
done
