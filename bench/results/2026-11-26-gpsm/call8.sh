#!/usr/bin/env bash
# Device call 8 of 2026-11-26-gpsm: after the review, GpSM's steps split also for the next
# step's per-row buffers and at 2^26 rows: its device test again, then GpSM with and without
# its refinement rounds on G3 (one run each).
set -uo pipefail
B=.device-bin
r=/tmp/r8; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
( time timeout 200 $B/tests/engine gpsm_equals_the_cpu --nocapture ) > $r/engine-gpsm.txt 2>&1
grep -E "test result|panicked|GpSM runs" $r/engine-gpsm.txt
timeout 60 $B/tests/nvrtc 2>&1 | grep "test result"
OUT=$r HEAVY_VARIANTS="gpsm gpsm-r0" HEAVY_TIMEOUT=8 timeout 120 bench/gpu-bench.sh g3-variants
cd /tmp && tar czf $OUT/call8.tgz r8
