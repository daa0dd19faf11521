#!/usr/bin/env bash
# Device call 4 of 2026-11-26-lazy-space (07fc8f7's build): the GPU suite (every GPU test executable, the HPRD
# and yeast oracles, HPRD in every ablation combination) on the lazy candidate space's build.
set -u
O=$OUT; R=/tmp/r4; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/device.txt 2>&1
( time OUT=$R/suite timeout 520 scripts/gpu-suite.sh run ) > $R/suite.txt 2>&1
tail -3 $R/suite/gpu-suite.log >> $R/suite.txt
grep -E "passed, .* failed$" $R/suite/gpu-suite.log | tail -8
grep -B1 " FAIL\| DIFF\|MISMATCH" $R/suite/gpu-suite.log | head -10
tar czf $O/call4.tgz -C $R .
