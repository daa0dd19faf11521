#!/usr/bin/env bash
# Device call 4 (16-core GPU host), commit da1e9f1: G1's ten queries with `--spasm auto`
# (now also gated by the spasm's own estimate) on the GPU and CPU engines, once each.
set -u
O=$OUT; R=/tmp/r4; mkdir -p $R/round1
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
{ nproc; nvidia-smi -L; } > $R/host.txt 2>&1
( time OUT=$R/round1 HEAVY_TIMEOUT=60 HEAVY_VARIANTS="gpu cpu" timeout 200 bench/gpu-bench.sh heavy ) \
    > $R/round1/time.txt 2>&1
tar czf $O/call4.tgz -C $R .
