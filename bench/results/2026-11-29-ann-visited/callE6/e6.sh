#!/bin/bash
# Device call E6 (diagnostic binary, not committed): where a GPU search batch's time goes.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
S=$PWD/.device-bin/subgraph; G=$PWD/.device-bin/subgraph-diag
D=/tmp/ann/g128; mkdir -p $D
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
timeout 120 $S gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $S ann build $D/base.fvecs --output $D/h.sgi --device gpu > /dev/null 2>&1; echo "build rc $?"
for ef in 10 64; do
  timeout 60 $G ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $ef --runs 5 --out /tmp/diag$ef 2>&1 | grep DIAG | tail -12
  tail -1 /tmp/diag$ef/ann.csv
done
