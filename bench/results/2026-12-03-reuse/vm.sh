#!/bin/bash
# The VM's A/B of main before (/tmp/bm/sg, 42f02057) and after (/tmp/bm/sg-reuse, this
# commit), one thread, two rounds alternated: yeast's 600 dense 16-, 24- and 32-vertex queries
# (/tmp/bm/yd holds symlinks to ../shared/data/yeast/query_graph/query_dense_{16,24,32}_*.graph)
# at a 1 s timeout, the 35 queries of bench/queries/heavy/yeast at 5 s, and the dense 8-vertex
# class of 2026-12-03-bitmaps (/tmp/dense: ppi.graph and q8, as run.sh makes them) with the
# shortcuts off at 3 s.
cd /work/main
run() { local B=$1 out=$2 data=$3 qs=$4 to=$5; shift 5; $B match "$data" $qs -q --format json --device cpu --threads 1 --timeout $to "$@" > $out 2>/dev/null; }
for r in 0 1; do for b in sg sg-reuse; do
  run /tmp/bm/$b /tmp/bm/r-$b-$r-yd.jsonl /work/shared/data/yeast/data_graph/yeast.graph /tmp/bm/yd 1
  run /tmp/bm/$b /tmp/bm/r-$b-$r-hy.jsonl tests/data/yeast/yeast.graph bench/queries/heavy/yeast 5
  run /tmp/bm/$b /tmp/bm/r-$b-$r-q8.jsonl /tmp/dense/ppi.graph /tmp/dense/q8 3 --spasm off --tail off
  echo "$r $b $(date +%T)"
done; done
echo done
