#!/usr/bin/env bash
# The data graph's numbering (`match --vertex-order`): each query counted with the file's
# numbering and with the degree order, rounds alternating, and per query the median of each,
# their ratio and whether the counts agree (bench/vertex-order-summary.py).
#
#   bench/vertex-order.sh OUT DATA QUERY...
#
# OUT: a folder for the raw reports (<order>-<round>.jsonl, stderr in <order>-<round>.err) and
# summary.md. Environment: SUBGRAPH (default target/release/subgraph), ROUNDS (default 2),
# FLAGS (added to every run, e.g. "--threads 1" or "--device gpu"), TIMEOUT (seconds per
# query, default 60).
set -uo pipefail
[ $# -ge 3 ] || { sed -n 2,11p "$0" >&2; exit 2; }
out=$1 data=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
sg=${SUBGRAPH:-$root/target/release/subgraph}
mkdir -p "$out"
for r in $(seq 1 "${ROUNDS:-2}"); do
    for order in file degree; do
        # shellcheck disable=SC2086
        "$sg" match --format json --vertex-order "$order" --timeout "${TIMEOUT:-60}" ${FLAGS:-} "$data" "$@" \
            >"$out/$order-$r.jsonl" 2>"$out/$order-$r.err"
    done
done
python3 "$root/bench/vertex-order-summary.py" "$out" | tee "$out/summary.md"
