#!/bin/bash
# Device call X5 (nvidia-h200-x2, 32 cores; or nvidia-h200, 16): the cluster mode after a
# step's held lists are read in place (one operator, the shortest list bounded by the
# restrictions, galloping intersections) and the replicas go once to each process. The R-MAT
# triangle beside BiGJoin (oriented) and the code before (subgraph-old, c2cabc1); yeast and
# HPRD triangles and 4-cliques beside BiGJoin; yeast's heavy queries at 1 and 8 processes.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin/subgraph
OLD=$PWD/.device-bin/subgraph-old
date -u; nproc
$B gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 --output /tmp/rmat.graph
timeout 120 bash bench/cluster/bigjoin.sh prepare /tmp/bj $B /tmp/rmat.graph tests/data/yeast/yeast.graph tests/data/hprd/HPRD.graph
export LOGS=/tmp/bj/logs
echo "== R-MAT triangle, new"
GRAPHS="rmat" PATTERNS="triangle" THREADS="4" PROCS="2 4" REPEAT=2 TIMEOUT=60 SYSTEMS="subgraph bigjoin-dag" timeout 200 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B | tee $OUT/bigjoin-rmat.txt
grep -h '"embeddings"' /tmp/bj/logs/subgraph-rmat-*.out > $OUT/rmat-cluster.jsonl
echo "== R-MAT triangle, old"
LOGS=/tmp/bj/logs-old GRAPHS="rmat" PATTERNS="triangle" THREADS="4" PROCS="2 4" REPEAT=1 TIMEOUT=60 SYSTEMS="subgraph" timeout 100 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $OLD | tee $OUT/bigjoin-rmat-old.txt
grep -h '"embeddings"' /tmp/bj/logs-old/subgraph-rmat-*.out > $OUT/rmat-cluster-old.jsonl
date -u
echo "== yeast, HPRD"
GRAPHS="yeast hprd" THREADS="1 4" PROCS="2 4" REPEAT=3 TIMEOUT=30 SYSTEMS="subgraph bigjoin-dag" timeout 150 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B | tee $OUT/bigjoin-small.txt
date -u
echo "== yeast heavy, 1 and 8 processes of 4 threads"
$B partition tests/data/yeast/yeast.graph --parts 8 --output /tmp/yp
for q in query_sparse_10_3 query_dense_10_5; do
  for p in 1 8; do
    timeout 60 $B match /tmp/yp/manifest.json bench/queries/heavy/yeast/$q.graph --local-processes $p --threads 4 --timeout 40 --format json -q 2>/dev/null | tee -a $OUT/heavy.jsonl | cut -c1-400
  done
done
date -u
