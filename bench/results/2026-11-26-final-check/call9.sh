#!/usr/bin/env bash
# Device call 9 (one H200): the full GPU suite on the session's final code (625a5b9; 58896db
# changes only the README).
set -u
O=$OUT; R=/tmp/r9; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
( time OUT=$R/suite timeout 330 scripts/gpu-suite.sh run ) > $R/suite.txt 2>&1
tail -1 $R/suite/gpu-suite.log >> $R/suite.txt
tar czf $O/call9.tgz -C $R .
