#!/usr/bin/env bash
# abenv.sh DEV DATA QLIST OUT F: one development build (DEV) that read the scout's share from
# SG_SCOUT (that reading is not committed: the share is `pipeline::SCOUT_SHARE`), run with
# SG_SCOUT=1 (written "main", the share before) and SG_SCOUT=F ("new"), alternated query by
# query, R rounds (default 2); QLIST and OUT as ../local/ab.sh's, read by ../local/an.py.
set -uo pipefail
[ $# -eq 5 ] || { sed -n '2,5p' "$0" >&2; exit 2; }
dev=$1 data=$2 list=$3 out=$4 f=$5
: >"$out"
for _ in $(seq "${R:-2}"); do
    while read -r g q; do
        for b in main new; do
            s=1
            [ $b = new ] && s=$f
            printf '%s\t%s\n' $b "$(SG_SCOUT=$s "$dev" match "$data/$g/data_graph/$g.graph" "$data/$g/query_graph/$q" \
                --threads 1 --device cpu --format json -q --timeout 10)" >>"$out"
        done
    done <"$list"
done
