#!/usr/bin/env bash
# ab.sh BASE NEW DATA QLIST OUT: each query of QLIST (lines "GRAPH QUERY_FILE", e.g.
# "yeast query_dense_16_25.graph") with BASE then NEW, query by query, R rounds (default 3):
# `match DATA/GRAPH/data_graph/GRAPH.graph DATA/GRAPH/query_graph/QUERY --threads 1 --device cpu
# --format json -q --timeout 10 $EXTRA`. OUT gets "main<TAB>json" and "new<TAB>json" lines;
# an.py OUT [v] pairs them (min of the rounds) and prints the geomean of new/main.
set -uo pipefail
[ $# -eq 5 ] || { sed -n '2,6p' "$0" >&2; exit 2; }
base=$1 new=$2 data=$3 list=$4 out=$5
: >"$out"
for _ in $(seq "${R:-3}"); do
    while read -r g q; do
        for b in main new; do
            bin=$base
            [ $b = new ] && bin=$new
            # shellcheck disable=SC2086
            printf '%s\t%s\n' $b "$("$bin" match "$data/$g/data_graph/$g.graph" "$data/$g/query_graph/$q" \
                --threads 1 --device cpu --format json -q --timeout 10 ${EXTRA:-})" >>"$out"
        done
    done <"$list"
done
