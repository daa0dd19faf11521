#!/bin/bash
# Device call X6 (the same warm nvidia-h200-x2 as X5): X5 copied every run log into $OUT, past
# the 8 files that come back, so its summaries were lost. This packs X5's run logs (still in
# /tmp/bj) and repeats X5's R-MAT, yeast/HPRD and yeast heavy blocks with their outputs kept.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin/subgraph
date -u; nproc
tar czf $OUT/x5-logs.tgz -C /tmp/bj logs logs-old
export LOGS=/tmp/bj/logs6
echo "== R-MAT triangle, new"
GRAPHS="rmat" PATTERNS="triangle" THREADS="4" PROCS="2 4" REPEAT=2 TIMEOUT=60 SYSTEMS="subgraph bigjoin-dag" timeout 200 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B | tee $OUT/bigjoin-rmat.txt
grep -h '"embeddings"' /tmp/bj/logs6/subgraph-rmat-*.out > $OUT/rmat-cluster.jsonl
date -u
echo "== yeast, HPRD"
GRAPHS="yeast hprd" THREADS="1 4" PROCS="2 4" REPEAT=3 TIMEOUT=30 SYSTEMS="subgraph bigjoin-dag" timeout 150 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B > $OUT/bigjoin-small.txt
date -u
echo "== yeast heavy, 1 and 8 processes of 4 threads"
for q in query_sparse_10_3 query_dense_10_5; do
  for p in 1 8; do
    timeout 60 $B match /tmp/yp/manifest.json bench/queries/heavy/yeast/$q.graph --local-processes $p --threads 4 --timeout 40 --format json -q 2>/dev/null >> $OUT/heavy.jsonl
  done
done
date -u
