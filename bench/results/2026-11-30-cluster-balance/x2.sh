#!/bin/bash
# Device call X2 (nvidia-h200-x2, 32 cores): the cluster mode's scaling with per-query replicas
# (issue 42). Yeast in 8 hash parts; each query on 1, 2, 4 and 8 processes of 4 threads with
# the default cache (1G), and on 1 and 8 without one (--cache-memory 0, the code of X1); one
# host's match with 4 threads beside it. JSON records in $OUT/runs.jsonl (run, P, T, cache
# added). Then BiGJoin beside ours (bigjoin.sh) where its binary was carried.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin/subgraph
date -u; nproc; free -g | head -2
$B partition tests/data/yeast/yeast.graph --parts 8 --output /tmp/yp
Q=bench/queries/heavy/yeast
rec() { python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); r.update(run='$1', P=$2, T=$3, cache='$4'); print(json.dumps(r))
    print('$1 P=$2 T=$3 cache=$4', r['query'].split('/')[-1], round(r['elapsed_ms']), r['embeddings'], r['complete'], r.get('bytes_sent'), [round(b) for b in r.get('busy_ms', [])], [round(b/2**20) for b in r.get('peak_rss_bytes', [])], r.get('replicated_positions'), file=sys.stderr)" >> $OUT/runs.jsonl; }
for q in query_dense_8_10 query_dense_10_9 query_dense_12_7 query_sparse_10_3 query_dense_10_5 query_sparse_10_6; do
  f=$Q/$q.graph
  timeout 60 $B match tests/data/yeast/yeast.graph $f --device cpu --threads 4 --timeout 40 --format json -q 2>/dev/null | rec host 1 4 -
  for c in 1G 0; do
    for p in 1 2 4 8; do
      [ $c = 0 ] && [ $p != 1 ] && [ $p != 8 ] && continue
      timeout 60 $B match /tmp/yp/manifest.json $f --local-processes $p --threads 4 --cache-memory $c --timeout 40 --format json -q 2>/dev/null | rec cluster $p 4 $c
    done
  done
  date -u
done
