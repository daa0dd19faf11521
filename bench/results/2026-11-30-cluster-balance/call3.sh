#!/bin/bash
# Device call X4 (nvidia-h200-x2): after `auto` leaves cliques to enumeration, the R-MAT
# triangle again beside BiGJoin on the oriented graph (bigjoin-dag), 1, 2 and 4 processes of
# 4 threads; the symmetric BiGJoin took 54-59 s in X3 and is left out.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin/subgraph
date -u
$B gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 --output /tmp/rmat.graph
timeout 90 bash bench/cluster/bigjoin.sh prepare /tmp/bj $B /tmp/rmat.graph
export LOGS=/tmp/bj/logs
GRAPHS="rmat" PATTERNS="triangle" THREADS="4" PROCS="2 4" REPEAT=2 TIMEOUT=60 SYSTEMS="subgraph bigjoin-dag" timeout 300 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B | tee $OUT/bigjoin-rmat.txt
for t in 1 4; do timeout 60 $B match /tmp/bj/rmat.sgb /tmp/bj/triangle.graph --device cpu --threads $t --format json -q; done | tee $OUT/rmat-host.jsonl
grep -h '"embeddings"' /tmp/bj/logs/subgraph-rmat-*.out > $OUT/rmat-cluster.jsonl
date -u
