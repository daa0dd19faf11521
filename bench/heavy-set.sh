#!/usr/bin/env bash
# The enumeration-bound set of the issue "Heavy queries": 111 random-walk queries on yeast,
# hprd, wordnet and a dense R-MAT graph (bench/queries/heavy/, how they were chosen in its
# README), each counted in full, one thread, against the Sun & Luo framework.
#
#   bench/heavy-set.sh FRAMEWORK OUT_DIR
#
# FRAMEWORK: the framework's SubgraphMatching.out (see bench/sunluo.sh). Writes
# OUT_DIR/<graph>.csv (bench/sunluo.sh's columns) and OUT_DIR/summary.md (per graph and class,
# bench/sunluo-summary.py, over the queries on which the framework took at least 4 ms).
# Environment: TIMEOUT (seconds per query, default 30), SUBGRAPH, OURS_FLAGS as for sunluo.sh,
# DATA (the Sun & Luo data, default ../shared/data), WORK (default bench/work: the R-MAT
# graph is generated there when missing).
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
fw=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
data=${DATA:-$root/../shared/data}
work=${WORK:-$root/bench/work}
sg=${SUBGRAPH:-$root/target/release/subgraph}
mkdir -p "$out" "$work"
rmat=$work/rmat16k.graph
[ -f "$rmat" ] || "$sg" gen graph --model rmat --vertices 16384 --edges 262144 --vertex-labels 32 \
    --label-dist uniform --seed 5 --output "$rmat"
for g in yeast hprd wordnet rmat16k; do
    case $g in
    rmat16k) d=$rmat ;;
    *) d=$data/$g/data_graph/$g.graph ;;
    esac
    # shellcheck disable=SC2046
    TIMEOUT=${TIMEOUT:-30} LIMIT=MAX "$root/bench/sunluo.sh" "$fw" "$d" "$out/$g.csv" \
        $(ls "$root/bench/queries/heavy/$g"/*.graph | sort -V)
done
python3 "$root/bench/sunluo-summary.py" --min-framework-ms 4 "$out"/{yeast,hprd,wordnet,rmat16k}.csv >"$out/summary.md"
cat "$out/summary.md"
