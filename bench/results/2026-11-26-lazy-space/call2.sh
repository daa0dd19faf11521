#!/usr/bin/env bash
# Device call 2 of 2026-11-26-lazy-space: `--device auto` against `--device gpu` and the
# 16-core CPU under the 10^5 limit on every Sun & Luo class (issue 14 item 4), then G3 three
# times on one GPU (the GPU path is unchanged: a control).
set -u
O=$OUT; R=/tmp/r2; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/device.txt 2>&1
( time OUT=$R/sets SETS_CLASSES=all SETS_QUERIES=20 SETS_LIMIT=100000 SETS_DEVICES="gpu-default cpu auto" \
    timeout 330 bench/gpu-bench.sh sets ) > $R/sets.txt 2>&1
tar czf $O/call2.tgz -C $R .
for k in 1 2 3; do
  OUT=$R/g3-$k HEAVY_VARIANTS=gpu HEAVY_TIMEOUT=10 timeout 60 bench/gpu-bench.sh g3-variants > $R/g3-$k.txt 2>&1
done
tar czf $O/call2.tgz -C $R .
