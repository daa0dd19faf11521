#!/bin/bash
# Device call X3 (nvidia-h200-x2): BiGJoin (dataflow-join e87677a + bench/cluster/bigjoin.patch,
# built on the development machine; `triangles-lean`, `q3-lean`) beside subgraph on unlabelled
# yeast, HPRD and an R-MAT graph (2^18 vertices, 2^22 edges), through bench/cluster/bigjoin.sh.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin/subgraph
date -u; nproc
$B gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 --output /tmp/rmat.graph
timeout 90 bash bench/cluster/bigjoin.sh prepare /tmp/bj $B tests/data/yeast/yeast.graph tests/data/hprd/HPRD.graph /tmp/rmat.graph
export LOGS=/tmp/bj/logs
GRAPHS="yeast hprd" THREADS="1 4" PROCS="2 4" REPEAT=3 TIMEOUT=60 timeout 200 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B | tee $OUT/bigjoin-small.txt
date -u
GRAPHS="rmat" PATTERNS="triangle" THREADS="4" PROCS="2 4" REPEAT=1 TIMEOUT=60 timeout 200 bash bench/cluster/bigjoin.sh run /tmp/bj .device-bin/bigjoin $B | tee $OUT/bigjoin-rmat.txt
date -u
# The host engine on the R-MAT triangle with the spasm off (the planner's attempt is issue 45's).
for t in 1 4; do timeout 60 $B match /tmp/bj/rmat.sgb /tmp/bj/triangle.graph --device cpu --threads $t --spasm off --format json -q; timeout 60 $B match /tmp/bj/rmat.sgb /tmp/bj/triangle.graph --device cpu --threads $t --format json -q; done | tee $OUT/rmat-host.jsonl
tar czf $OUT/logs.tgz -C /tmp/bj logs
date -u
