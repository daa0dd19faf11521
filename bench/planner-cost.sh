#!/usr/bin/env bash
# Issue 45's measurement: two subgraph binaries (BASE and NEW) against the Sun & Luo framework,
# one thread each, query by query on parallel lanes (bench/sunluo-lanes.py), over the heavy set
# (bench/queries/heavy) and the standard sets (DATA/<graph>/query_graph).
#
#   FW=... BASE=... NEW=... bench/planner-cost.sh OUT_DIR
#
# Environment: DATA (the Sun & Luo data, default ../shared/data), HEAVY (graphs of the heavy
# set, default "yeast hprd wordnet rmat16k"), STANDARD (standard sets, default "yeast hprd
# wordnet"), LANES (default cores - 1), STEP (seconds each graph may take, default 600),
# HEAVY_TIMEOUT and STANDARD_TIMEOUT (seconds per query, defaults 10 and 5). rmat16k is
# generated into OUT_DIR as bench/heavy-set.sh generates it. Writes OUT_DIR/heavy-<g>.csv,
# OUT_DIR/std-<g>.csv and their summaries OUT_DIR/summary-heavy.md and summary-std.md.
set -uo pipefail
[ $# -eq 1 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
data=${DATA:-$root/../shared/data}
lanes=${LANES:-$(($(nproc) - 1))}
mkdir -p "$out"
rmat=$out/rmat16k.graph
[ -f "$rmat" ] || "$NEW" gen graph --model rmat --vertices 16384 --edges 262144 --vertex-labels 32 \
    --label-dist uniform --seed 5 --output "$rmat"
run() { # name data timeout queries...
    local name=$1 d=$2 t=$3
    shift 3
    timeout "${STEP:-600}" python3 "$root/bench/sunluo-lanes.py" --framework "$FW" --data "$d" \
        --out "$out/$name.csv" --subgraph base="$BASE" --subgraph new="$NEW" --lanes "$lanes" --timeout "$t" "$@"
}
for g in ${HEAVY-yeast hprd wordnet rmat16k}; do
    case $g in rmat16k) d=$rmat ;; *) d=$data/$g/data_graph/$g.graph ;; esac
    # shellcheck disable=SC2046
    run "heavy-$g" "$d" "${HEAVY_TIMEOUT:-10}" $(ls "$root/bench/queries/heavy/$g"/*.graph | sort -V)
done
for g in ${STANDARD-yeast hprd wordnet}; do
    # shellcheck disable=SC2046
    run "std-$g" "$data/$g/data_graph/$g.graph" "${STANDARD_TIMEOUT:-5}" $(ls "$data/$g/query_graph"/*.graph | sort -V)
done
shopt -s nullglob
heavy=("$out"/heavy-*.csv) std=("$out"/std-*.csv)
[ ${#heavy[@]} -gt 0 ] && python3 "$root/bench/sunluo-lanes-summary.py" "${heavy[@]}" >"$out/summary-heavy.md"
[ ${#std[@]} -gt 0 ] && python3 "$root/bench/sunluo-lanes-summary.py" "${std[@]}" >"$out/summary-std.md"
exit 0
