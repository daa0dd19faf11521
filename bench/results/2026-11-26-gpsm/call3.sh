#!/usr/bin/env bash
# Device call 3 of 2026-11-26-gpsm: GpSM's strategy against GSI's (the defaults) on the Sun & Luo
# sets and on G3, counting every embedding.
set -uo pipefail
r=/tmp/r3; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
nproc > $r/cores.txt
start=$SECONDS
OUT=$r SETS_CLASSES="dense_8 sparse_8 dense_16 sparse_16" SETS_QUERIES=20 SETS_TIMEOUT=3 \
    SETS_DEVICES="gpu-default gpu-gpsm" timeout 260 bench/gpu-bench.sh sets
echo "sets: $((SECONDS - start)) s"
start=$SECONDS
OUT=$r HEAVY_VARIANTS="gpu gpsm" HEAVY_TIMEOUT=8 timeout 300 bench/gpu-bench.sh g3-variants
echo "g3: $((SECONDS - start)) s"
cd /tmp && tar czf $OUT/call3.tgz r3
