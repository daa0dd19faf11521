#!/bin/bash
# Device call Q1: where a query's time goes (clock() per phase, a diagnostic build printing a line a query: prof.patch) and how much a batch of 10,000 loses against 100,000 a batch.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; P=$PWD/.device-bin/subgraph-prof
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 200 $N gen vectors --count 1000000 --dim 128 --queries 100000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
timeout 90 $N ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build.json)"
for round in 1 2; do for p in single half; do for m in 10000 100000; do
  timeout 120 $N ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 10,32,64,96,128 --runs 5 --precision $p --max-queries $m --out $OUT/raw/b-$p-$m-$round > /dev/null 2>&1; echo "bench $p $m $round rc $?"
  cut -d, -f1-4 $OUT/raw/b-$p-$m-$round/ann.csv | tr '\n' ' '; echo
done; done; done
for p in single half; do for ef in 64 96; do
  timeout 60 $P ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision $p --max-queries 10000 -o /tmp/x.csv > $OUT/raw/prof-$p-$ef.txt 2>&1; echo "prof $p $ef rc $? lines $(wc -l < $OUT/raw/prof-$p-$ef.txt)"
  timeout 60 $P ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision $p --max-queries 10000 -o /tmp/x.csv > $OUT/raw/prof-$p-$ef.txt 2>&1; echo "prof2 $p $ef rc $? lines $(wc -l < $OUT/raw/prof-$p-$ef.txt)"
  grep -v '^[QS] ' $OUT/raw/prof-$p-$ef.txt | head -3
done; done
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
