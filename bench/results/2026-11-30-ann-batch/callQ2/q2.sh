#!/bin/bash
# Device call Q2: per-phase cycles (clock64 sums by atomics, a diagnostic build: prof.patch; no per-query printf) and time per batch against batch size.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; P=$PWD/.device-bin/subgraph-prof
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
timeout 200 $N gen vectors --count 1000000 --dim 128 --queries 100000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
timeout 90 $N ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build.json)"
for p in half single; do for ef in 10 64 128; do for m in 10000 100000; do
  timeout 60 $P ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $ef --runs 3 --precision $p --max-queries $m --out $OUT/raw/pb-$p-$ef-$m > $OUT/raw/prof-$p-$ef-$m.txt 2>&1; echo "prof $p $ef $m rc $? $(grep -c '^P ' $OUT/raw/prof-$p-$ef-$m.txt) $(tail -1 $OUT/raw/pb-$p-$ef-$m/ann.csv)"
done; done; done
for round in 1 2; do for m in 2500 5000 10000 20000 40000 100000; do
  timeout 60 $N ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 10,64,128 --runs 5 --precision half --max-queries $m --out $OUT/raw/bs-$m-$round > /dev/null 2>&1; echo "bs $m $round rc $? $(cut -d, -f7,9,10 $OUT/raw/bs-$m-$round/ann.csv | tail -3 | tr '\n' ' ')"
done; done
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
