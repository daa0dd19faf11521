#!/usr/bin/env bash
# Device call 5 of 2026-11-26-gpsm: FSIG's A built from PCSR in one pass over all links, and
# `--gpu-structure auto` (A for predicted joins of 20 ms or more): the engine tests, then G3
# three times (auto, pcsr, aux) and the Sun & Luo sets (auto against pcsr).
set -uo pipefail
B=.device-bin
r=/tmp/r5; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
( time timeout 330 $B/tests/engine --test-threads 1 ) > $r/engine.txt 2>&1
grep -E "^test |test result|panicked" $r/engine.txt | head -20
start=$SECONDS
for i in 1 2 3; do
  OUT=$r/g3-$i HEAVY_VARIANTS="gpu gpu-pcsr gpu-aux" HEAVY_TIMEOUT=8 timeout 120 bench/gpu-bench.sh g3-variants
done
echo "g3: $((SECONDS - start)) s"
start=$SECONDS
OUT=$r SETS_CLASSES="dense_8 sparse_8 dense_16 sparse_16" SETS_QUERIES=20 SETS_TIMEOUT=3 \
    SETS_DEVICES="gpu-default gpu-pcsr" timeout 150 bench/gpu-bench.sh sets 2>/dev/null
echo "sets: $((SECONDS - start)) s"
cd /tmp && tar czf $OUT/call5.tgz r5
