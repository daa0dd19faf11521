#!/bin/bash
# Device call X7 (nvidia-h200-x2, 32 cores): a085166, the replicas once per process (not per
# worker) and --local-processes looking at its children every 2 ms, on top of X5/X6's held
# lists read in place. The R-MAT triangle and yeast/HPRD beside BiGJoin (oriented), and yeast's
# heavy queries at 1, 2, 4 and 8 processes of 4 threads. Five files come back.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin/subgraph
date -u; nproc
$B gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 --output /tmp/rmat.graph
timeout 120 bash bench/cluster/bigjoin.sh prepare /tmp/bj $B /tmp/rmat.graph tests/data/yeast/yeast.graph tests/data/hprd/HPRD.graph
export LOGS=/tmp/bj/logs
echo "== R-MAT triangle"
GRAPHS="rmat" PATTERNS="triangle" THREADS="4" PROCS="2 4" REPEAT=2 TIMEOUT=60 SYSTEMS="subgraph bigjoin-dag" timeout 200 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B > $OUT/bigjoin-rmat.txt
cat $OUT/bigjoin-rmat.txt
grep -h '"embeddings"' /tmp/bj/logs/subgraph-rmat-*.out > $OUT/rmat-cluster.jsonl
date -u
echo "== yeast, HPRD"
GRAPHS="yeast hprd" THREADS="1 4" PROCS="2 4" REPEAT=3 TIMEOUT=30 SYSTEMS="subgraph bigjoin-dag" timeout 150 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B > $OUT/bigjoin-small.txt
date -u
echo "== yeast heavy, 1, 2, 4 and 8 processes of 4 threads"
$B partition tests/data/yeast/yeast.graph --parts 8 --output /tmp/yp
for q in query_sparse_10_3 query_dense_10_5; do
  for p in 1 2 4 8; do
    timeout 60 $B match /tmp/yp/manifest.json bench/queries/heavy/yeast/$q.graph --local-processes $p --threads 4 --timeout 40 --format json -q 2>/dev/null >> $OUT/heavy.jsonl
  done
done
date -u
