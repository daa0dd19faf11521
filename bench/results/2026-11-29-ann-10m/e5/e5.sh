#!/bin/bash
# Device call E5: 10M x 96, a denser graph for recall 0.99 (degree 48, ef_construction 128), and
# the default graph's sweep up to ef 1024.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
S=$PWD/.device-bin/subgraph
D=/tmp/ann/g96x10m; mkdir -p $D $OUT/r
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
timeout 240 $S gen vectors --count 10000000 --dim 96 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > $OUT/r/gen.log 2>&1; echo "gen rc $?"
date -u
timeout 300 $S ann build $D/base.fvecs --output $D/h48.sgi --device gpu --degree 48 --ef-construction 128 > $OUT/r/build48.json 2> $OUT/r/build48.err; echo "build48 rc $?"; grep -o '"build_seconds":[0-9.]*' $OUT/r/build48.json; tail -2 $OUT/r/build48.err | cut -c1-300
date -u
timeout 150 $S ann bench $D/h48.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 64,96,128,192,256,384,512,768,1024 --runs 5 --out $OUT/r/bench48 > $OUT/r/bench48.log 2>&1; echo "bench48 rc $?"; cat $OUT/r/bench48/ann.csv
date -u
(cd $OUT && tar czf e5.tgz r && rm -rf r)
