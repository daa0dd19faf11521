#!/bin/bash
# The VM's A/B of --bitmaps off and auto (one thread, two rounds alternated): yeast's 600
# dense 16-, 24- and 32-vertex queries (/tmp/bm/yd holds symlinks to
# ../shared/data/yeast/query_graph/query_dense_{16,24,32}_*.graph) at a 1 s timeout, and the
# 35 queries of bench/queries/heavy/yeast at 5 s; /tmp/bm/sg is this commit's release build.
cd /work/main
B=/tmp/bm/sg
run() { local out=$1 data=$2 qs=$3 to=$4; shift 4; $B match "$data" $qs -q --format json --device cpu --threads 1 --timeout $to "$@" > $out 2>/dev/null; }
for r in 0 1; do for f in off auto; do
  run /tmp/bm/$f-$r-yd.jsonl /work/shared/data/yeast/data_graph/yeast.graph /tmp/bm/yd 1 --bitmaps $f
  run /tmp/bm/$f-$r-hy.jsonl tests/data/yeast/yeast.graph bench/queries/heavy/yeast 5 --bitmaps $f
  echo "$r $f $(date +%T)"
done; done
echo done
