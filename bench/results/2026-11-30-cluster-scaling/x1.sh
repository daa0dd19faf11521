#!/bin/bash
# Device call X1 (nvidia-h200-x2, 32 cores): the cluster mode's scaling on one host (issue 42).
# Yeast in 8 hash parts; each query first on 1 process of 4 threads (40 s at most), then, where
# it finished, on 2, 4 and 8 processes of 4 threads over loopback; one host's match with 4 and
# 32 threads beside it. JSON records in $OUT/runs.jsonl (run, P, T added).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin/subgraph
date -u; nproc; lscpu | grep -E "Model name|Socket|Core|Thread" ; free -g | head -2
$B partition tests/data/yeast/yeast.graph --parts 8 --output /tmp/yp
Q=bench/queries/heavy/yeast
rec() { python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); r.update(run='$1', P=$2, T=$3); print(json.dumps(r))
    print('$1 P=$2 T=$3', r['query'].split('/')[-1], round(r['elapsed_ms']), r['embeddings'], r['complete'], r.get('bytes_sent'), [round(b) for b in r.get('busy_ms', [])], file=sys.stderr)" >> $OUT/runs.jsonl; }
for q in query_dense_8_10 query_dense_10_9 query_dense_12_7 query_sparse_10_3 query_dense_10_5 query_sparse_10_6 query_dense_12_6; do
  f=$Q/$q.graph
  for t in 4 32; do timeout 60 $B match tests/data/yeast/yeast.graph $f --device cpu --threads $t --timeout 40 --format json -q 2>/dev/null | rec host 1 $t; done
  timeout 60 $B match /tmp/yp/manifest.json $f --local-processes 1 --threads 4 --timeout 40 --format json -q 2>/dev/null | rec cluster 1 4
  done1=$(tail -1 $OUT/runs.jsonl | python3 -c "import json,sys; r=json.loads(sys.stdin.read()); print(1 if r['complete'] and r['run']=='cluster' else 0)")
  [ "$done1" = 1 ] || continue
  for p in 2 4 8; do
    timeout 60 $B match /tmp/yp/manifest.json $f --local-processes $p --threads 4 --timeout 40 --format json -q 2>/dev/null | rec cluster $p 4
  done
  date -u
done
