#!/usr/bin/env bash
# Device call 7 of 2026-11-26-gpsm: the final rule of `--gpu-structure auto` (A where the device
# filter made the candidates, or for predicted joins of 20 ms or more): the engine tests (the
# device-filter combinations now read A under the default structure), then G3 three times
# (auto, pcsr).
set -uo pipefail
B=.device-bin
r=/tmp/r7; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
( time timeout 420 $B/tests/engine ) > $r/engine.txt 2>&1
grep -E "test result|panicked|FAILED" $r/engine.txt | head -10
for i in 1 2 3; do
  OUT=$r/g3-$i HEAVY_VARIANTS="gpu gpu-pcsr" HEAVY_TIMEOUT=8 timeout 60 bench/gpu-bench.sh g3-variants
done
cd /tmp && tar czf $OUT/call7.tgz r7
