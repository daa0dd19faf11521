#!/usr/bin/env bash
# Load times and memory peaks of edge lists, old binary against new, alternating, 3 runs each.
# Usage: bash loads.sh OLD_BINARY NEW_BINARY   (writes its inputs under ${TMPDIR:-/tmp})
set -eu
old=$1 new=$2 t=${TMPDIR:-/tmp}
[ -f "$t/rmat20m.txt" ] || "$new" gen graph --vertices 2000000 --edges 20000000 --seed 0 --output "$t/rmat20m.txt" 2>/dev/null
[ -f "$t/rmat5m.txt" ] || head -5000000 "$t/rmat20m.txt" > "$t/rmat5m.txt"
[ -f "$t/rmat5m-sparse.txt" ] || python3 -c '
import sys
for l in open(sys.argv[1]):
    a, b = l.split()
    sys.stdout.write(f"{int(a)*1000003+7} {int(b)*1000003+7}\n")' "$t/rmat5m.txt" > "$t/rmat5m-sparse.txt"
printf '0 1\n4000000000 2\n' > "$t/big.txt"
run() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
for f in rmat20m.txt rmat5m.txt rmat5m-sparse.txt big.txt; do
    for i in 1 2 3; do
        for b in old new; do
            bin=$old; [ $b = new ] && bin=$new
            [ $b = old ] && [ $f != rmat20m.txt ] && [ $f != rmat5m.txt ] && continue
            echo "$f $b run$i $(run "$bin" info "$t/$f")  (seconds, peak KB)"
        done
    done
done
