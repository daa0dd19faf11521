#!/usr/bin/env bash
# Device call 6 of 2026-11-26-gpsm: the GPU suite (its test executables but `engine`, which
# call 5 ran: every test passed there but tree_counts, cut by that call's timeout and unchanged
# since call 4, where it passed), then G3 three times (auto, pcsr, aux) and the Sun & Luo sets
# (auto against aux), with A's kernel compiled when the engine opens.
set -uo pipefail
B=.device-bin
r=/tmp/r6; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
mkdir -p /tmp/held && mv $B/tests/engine /tmp/held/
OUT=$r timeout 330 bash scripts/gpu-suite.sh run > /dev/null 2>&1
grep -E "^test executable|passed, .* failed$" $r/gpu-suite.log | tail -6
grep -B1 " FAIL\| DIFF\|MISMATCH" $r/gpu-suite.log | head -10
start=$SECONDS
for i in 1 2 3; do
  OUT=$r/g3-$i HEAVY_VARIANTS="gpu gpu-pcsr gpu-aux" HEAVY_TIMEOUT=8 timeout 60 bench/gpu-bench.sh g3-variants
done
echo "g3: $((SECONDS - start)) s"
start=$SECONDS
OUT=$r SETS_CLASSES="dense_8 sparse_8 dense_16 sparse_16" SETS_QUERIES=20 SETS_TIMEOUT=2 \
    SETS_DEVICES="gpu-aux gpu-default" timeout 130 bench/gpu-bench.sh sets 2>/dev/null
echo "sets: $((SECONDS - start)) s"
cd /tmp && tar czf $OUT/call6.tgz r6
