#!/bin/bash
# Device call C1 (issue 42), the H200 host's 16 cores (no GPU used): R-MAT triangles (2^18
# vertices, 2^22 edges) and 4-cliques (2^16, 2^20), 1, 2 and 4 processes of 4 threads over
# loopback, parts cut by `partition --vertex-order degree`; ours before (`subgraph-base`,
# b184202) and after (`subgraph`, the held search) beside Delta-BiGJoin on its best input (each
# edge once, oriented by degree). Triangles three rounds alternated, 4-cliques one.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
cd .device-bin && for f in *.xz; do xz -d -f $f; done; chmod +x *; cd ..
date -u; nproc; grep -m1 "model name" /proc/cpuinfo
P=/tmp/bj; mkdir -p $P/bj $OUT/logs/subgraph $OUT/logs/subgraph-base; cp .device-bin/triangles .device-bin/four-cliques $P/bj/
timeout 60 .device-bin/subgraph gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 -o $P/rmat18.graph; echo "gen rc $? $SECONDS"
timeout 60 .device-bin/subgraph gen graph --model rmat --vertices 65536 --edges 1048576 --seed 1 -o $P/rmat16.graph; echo "gen rc $? $SECONDS"
timeout 200 bash bench/cluster/bigjoin.sh prepare $P .device-bin/subgraph $P/rmat18.graph $P/rmat16.graph > /dev/null 2>&1; echo "prepare rc $? $SECONDS"
run() { GRAPHS=$1 PATTERNS=$2 THREADS=4 PROCS="$3" BIGJOIN_VARIANT=delta SYSTEMS="$4" \
  PARTITION_ARGS="--vertex-order degree" TIMEOUT=$5 LOGS=$OUT/logs/$(basename $6) bash bench/cluster/bigjoin.sh run $P $P/bj "$6"; }
for round in 1 2 3; do
  run rmat18 triangle "2 4" subgraph 60 .device-bin/subgraph-base | grep -v "^system" | sed "s/^subgraph /base /;s/$/ round$round/"
  run rmat18 triangle "2 4" subgraph 60 .device-bin/subgraph | grep -v "^system" | sed "s/^subgraph /new /;s/$/ round$round/"
  run rmat18 triangle "2 4" bigjoin-dag 60 .device-bin/subgraph | grep -v "^system" | sed "s/$/ round$round/"
  echo "round $round $SECONDS"
done
run rmat16 clique4 "2 4" subgraph 120 .device-bin/subgraph-base | grep -v "^system" | sed "s/^subgraph /base /"
run rmat16 clique4 "2 4" subgraph 120 .device-bin/subgraph | grep -v "^system" | sed "s/^subgraph /new /"
echo "clique4 ours $SECONDS"
[ $SECONDS -lt 300 ] && run rmat16 clique4 "2 4" bigjoin-dag 130 .device-bin/subgraph | grep -v "^system"
echo "clique4 bigjoin $SECONDS"
# The JSON records of our runs (busy_ms, search, bytes_sent), for the results file.
tar czf $OUT/logs.tgz -C $OUT logs 2>/dev/null && rm -rf $OUT/logs
date -u; echo "elapsed $SECONDS"
