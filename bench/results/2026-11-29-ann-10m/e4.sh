#!/bin/bash
# Device call E4: issue 40's 10M x 96 on one H200, ours alone: data and exact ground truth on
# the GPU, the GPU build (defaults), and the recall-QPS sweep (k 10, batches of 10,000).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
S=$PWD/.device-bin/subgraph
D=/tmp/ann/g96x10m; mkdir -p $D $OUT/r
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; free -g | head -2; df -h /tmp | tail -1
/usr/bin/time -v timeout 240 $S gen vectors --count 10000000 --dim 96 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > $OUT/r/gen.log 2> $OUT/r/gen.err; echo "gen rc $?"; grep -E "Elapsed|Maximum resident" $OUT/r/gen.err; tail -2 $OUT/r/gen.log | cut -c1-300
date -u
/usr/bin/time -v timeout 300 $S ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/r/build.json 2> $OUT/r/build.err; echo "build rc $?"; grep -o '"build_seconds":[0-9.]*' $OUT/r/build.json; grep -E "Elapsed|Maximum resident" $OUT/r/build.err; tail -3 $OUT/r/build.err | cut -c1-300
date -u
timeout 200 $S ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 16,24,32,48,64,96,128,192,256,384,512 --runs 5 --out $OUT/r/bench > $OUT/r/bench.log 2>&1; echo "bench rc $?"; cat $OUT/r/bench/ann.csv
date -u
(cd $OUT && tar czf e4.tgz r && rm -rf r)
