#!/usr/bin/env bash
# Device call 1 (one H200 host, 16 cores): G1's ten queries counted with `--spasm auto` (the
# default) on the GPU engine and on the CPU engine, twice each, 60 s per query; then the
# three G1 queries the GPU enumerated before with `--spasm off` for comparison.
set -u
O=$OUT; R=/tmp/r1; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
{ nproc; nvidia-smi -L; git log --oneline -1 2>/dev/null; } > $R/host.txt 2>&1
for round in 1 2; do
  mkdir -p $R/round$round
  ( time OUT=$R/round$round HEAVY_TIMEOUT=60 HEAVY_VARIANTS="gpu cpu" timeout 250 bench/gpu-bench.sh heavy ) \
      > $R/round$round/time.txt 2>&1
  tar czf $O/call1.tgz -C $R .
done
q=/tmp/G1_q
timeout 60 .device-bin/subgraph match -q --format json --device gpu --spasm off --timeout 20 /tmp/G1.sgb \
    $q/dense_8_1.graph $q/dense_8_5.graph $q/dense_8_4.graph > $R/gpu-enum.jsonl 2> $R/gpu-enum.err
tar czf $O/call1.tgz -C $R .
