#!/bin/bash
# Device call S3 (38d4d63): --max-concurrent per device on the GPU (issue 43): the gpu_ tests and
# server-gpu-check.py (auto with one CPU turn: CPU queries answered beside a GPU query; handovers
# under --device gpu); then HPRD's 200 oracle queries from 64 clients for 30 s under
# --device gpu with restarts at 10 and 20 s (examples/load), and the same under --device auto.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export SUBGRAPH_PTX_CACHE=/tmp/ptx
SUBGRAPH_REQUIRE_GPU=1 timeout 200 $B/server-tests gpu_ --test-threads 1 --nocapture 2>&1 | grep -vE "^\s+[0-9]+:|^\s+at " | grep -v '"candidate_edges"' | tail -20
echo "server tests rc ${PIPESTATUS[0]}"; date -u
timeout 240 python3 scripts/server-gpu-check.py $B/subgraph tests/data/hprd/HPRD.graph; echo "check rc $?"; date -u
for dev in gpu auto; do
  $B/subgraph serve --graph hprd=tests/data/hprd/HPRD.graph --device $dev --listen 127.0.0.1:7878 --max-concurrent 16 --max-queue 256 2>>$OUT/serve-$dev.log &
  server=$!; sleep 8
  timeout 100 $B/load --url http://127.0.0.1:7878 --queries tests/data/hprd/queries --expected tests/data/hprd/expected_output.res \
     --clients 64 --seconds 30 > $OUT/load-$dev.txt 2>&1 &
  l=$!
  for t in 10 20; do sleep 10; date -u +%T; curl -s -XPOST localhost:7878/v1/restart; echo; done
  wait $l; echo "load rc $?"
  curl -s localhost:7878/v1/health; echo
  curl -s localhost:7878/metrics | grep -E "^subgraph_(server_generation|requests_total.*match|errors_total)" 
  kill -TERM $server; wait $server; echo "supervisor exit $?"
  grep -vE "^\s+[0-9]+:|^\s+at |^Stack" $OUT/load-$dev.txt | head -8
done
date -u
