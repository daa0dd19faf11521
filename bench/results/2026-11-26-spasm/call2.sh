#!/usr/bin/env bash
# Device call 2 (one H200 host, 16 cores): the final spasm code (plans chosen by second
# moments of the label degrees; plan/hom split). G1's ten queries with `--spasm auto` on the
# GPU and CPU engines, twice; then the GPU suite (every strategy's counts against the CPU
# engine, where `auto` now counts heavy queries by the spasm).
set -u
O=$OUT; R=/tmp/r2; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
{ nproc; nvidia-smi -L; } > $R/host.txt 2>&1
for round in 1 2; do
  mkdir -p $R/round$round
  ( time OUT=$R/round$round HEAVY_TIMEOUT=60 HEAVY_VARIANTS="gpu cpu" timeout 200 bench/gpu-bench.sh heavy ) \
      > $R/round$round/time.txt 2>&1
  tar czf $O/call2.tgz -C $R .
done
( time OUT=$R/suite timeout 300 scripts/gpu-suite.sh run ) > $R/suite.txt 2>&1
tail -1 $R/suite/gpu-suite.log >> $R/suite.txt 2>/dev/null
tar czf $O/call2.tgz -C $R .
