#!/usr/bin/env bash
# Device call 6: the GPU suite (every GPU test executable, the HPRD and yeast oracles, HPRD in
# every ablation combination) on f3f6319's build.
set -u
O=$OUT; R=/tmp/r6; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/device.txt 2>&1
( time OUT=$R/suite timeout 560 scripts/gpu-suite.sh run ) > $R/suite.txt 2>&1
tail -3 $R/suite/gpu-suite.log >> $R/suite.txt
tar czf $O/call6.tgz -C $R .
