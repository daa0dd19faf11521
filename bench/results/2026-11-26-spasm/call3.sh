#!/usr/bin/env bash
# Device call 3 (one H200 host, 16 cores), commit 0fcf28a: G1's ten queries with `--spasm
# auto` on the GPU and CPU engines, twice; `--spasm off` on the GPU for the three queries it
# enumerates within 10 s; then the GPU test executables (the engine's counts against the CPU).
set -u
O=$OUT; R=/tmp/r3; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
{ nproc; nvidia-smi -L; } > $R/host.txt 2>&1
for round in 1 2; do
  mkdir -p $R/round$round
  ( time OUT=$R/round$round HEAVY_TIMEOUT=60 HEAVY_VARIANTS="gpu cpu" timeout 200 bench/gpu-bench.sh heavy ) \
      > $R/round$round/time.txt 2>&1
  tar czf $O/call3.tgz -C $R .
done
q=/tmp/G1_q
timeout 60 .device-bin/subgraph match -q --format json --device gpu --spasm off --timeout 20 /tmp/G1.sgb \
    $q/dense_8_1.graph $q/dense_8_5.graph $q/dense_8_4.graph > $R/gpu-enum.jsonl 2> $R/gpu-enum.err
tar czf $O/call3.tgz -C $R .
( time OUT=$R/suite timeout 300 scripts/gpu-suite.sh run ) > $R/suite.txt 2>&1
tail -1 $R/suite/gpu-suite.log >> $R/suite.txt 2>/dev/null
tar czf $O/call3.tgz -C $R .
