#!/usr/bin/env bash
# Device call 2 of 2026-11-26-gpsm: GpSM's device test, then the whole GPU suite (now with
# GpSM's sets).
set -uo pipefail
B=.device-bin
r=/tmp/r2; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
( time SUBGRAPH_REQUIRE_GPU=1 timeout 200 $B/tests/engine gpsm_equals_the_cpu --nocapture ) > $r/engine-gpsm.txt 2>&1
tail -6 $r/engine-gpsm.txt
OUT=$r SUITE_TEST_TIMEOUT=300 timeout 520 bash scripts/gpu-suite.sh run > /dev/null 2>&1
grep -E "^test executable|passed, .* failed$" $r/gpu-suite.log | tail -8
grep -A2 "== hprd-gpsm\|== yeast-gpsm" $r/gpu-suite.log | grep -v "^--" | head -40
cd /tmp && tar czf $OUT/call2.tgz r2
