#!/bin/bash
# Device call A5 (issue 42), the H200 host's 16 cores: R-MAT 2^18 vertices / 2^22 edges, triangles,
# 1, 2 and 4 processes of 4 threads over loopback (parts cut by `partition --vertex-order degree`),
# ours before (706126e) and after (f0ce009) the replicas' change, beside Delta-BiGJoin on its best
# input (each edge once, oriented by degree), three rounds alternated.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
cd .device-bin && for f in *.gz; do gunzip -f $f; done; chmod +x *; cd ..
date -u; nproc; grep -m1 "model name" /proc/cpuinfo
P=/tmp/bj; mkdir -p $P
timeout 60 .device-bin/subgraph gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 -o $P/rmat18.graph; echo "gen rc $? $SECONDS"
timeout 200 bash bench/cluster/bigjoin.sh prepare $P .device-bin/subgraph $P/rmat18.graph > /dev/null 2>&1; echo "prepare rc $? $SECONDS"
mkdir -p $P/bj; cp .device-bin/triangles $P/bj/triangles
run() { GRAPHS=rmat18 PATTERNS=triangle THREADS=4 PROCS="2 4" BIGJOIN_VARIANT=delta SYSTEMS="$1" \
  PARTITION_ARGS="--vertex-order degree" TIMEOUT=60 LOGS=$OUT/logs bash bench/cluster/bigjoin.sh run $P $P/bj "$2"; }
for round in 1 2 3; do
  run subgraph .device-bin/subgraph-base | grep -v "^system" | sed "s/^subgraph /base /;s/$/ round$round/"
  run subgraph .device-bin/subgraph | grep -v "^system" | sed "s/^subgraph /new /;s/$/ round$round/"
  run bigjoin-dag .device-bin/subgraph | grep -v "^system" | sed "s/$/ round$round/"
  echo "round $round $SECONDS"
done
date -u; echo "elapsed $SECONDS"
