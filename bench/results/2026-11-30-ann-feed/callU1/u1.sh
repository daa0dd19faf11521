#!/bin/bash
# Device call U1: one launch a batch, its queries fed in pieces while it runs (new) against
# main (9c14fd5), which stages a batch in two chunks, each launched once its queries are on
# the device. 1M x 128; the default graph and the better-built one (--d-min 20
# --ef-construction 128); interleaved rounds, both precisions; answers compared; batch sizes;
# one query at a time; the GPU tests; the search kernel's registers (ptxas -v).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
B=/tmp/bin/subgraph
timeout 120 $B gen vectors --count 1000000 --dim 128 --queries 40000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
timeout 150 $B ann build $D/base.fvecs --output $D/gd.sgi --device gpu > $OUT/raw/build-gd.json 2>/dev/null; echo "build gd rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-gd.json)"
timeout 150 $B ann build $D/base.fvecs --output $D/gt.sgi --d-min 20 --ef-construction 128 --device gpu > $OUT/raw/build-gt.json 2>/dev/null; echo "build gt rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-gt.json)"
for b in main new; do X=/tmp/bin/subgraph; [ $b = main ] && X=/tmp/bin/subgraph-main
  for p in single half; do timeout 60 $X ann search $D/gd.sgi $D/query.fvecs --ef 64 --device gpu --precision $p -o /dev/null > /dev/null 2>&1; done; done
echo "warm $SECONDS"
timeout 200 /tmp/bin/ann-gpu --test-threads 2 > $OUT/raw/gpu-tests.txt 2>&1; echo "gpu tests rc $? $(grep 'test result' $OUT/raw/gpu-tests.txt)"
grep -E "FAILED|panicked" $OUT/raw/gpu-tests.txt | head
for f in $(ls /tmp/ptx/ | grep -E "ganns_search.*d128" | head -4); do echo "ptx $f"; timeout 60 ptxas -arch=sm_90 -v /tmp/ptx/$f -o /dev/null 2>&1 | grep -E "ganns_search|registers|spill" | head -4; done
for g in gd gt; do for p in single half; do for b in main new; do X=/tmp/bin/subgraph; [ $b = main ] && X=/tmp/bin/subgraph-main
  timeout 60 $X ann search $D/$g.sgi $D/query.fvecs --max-queries 10000 --ef 80 --device gpu --precision $p -o /tmp/$b-$g-$p.csv > /dev/null 2>&1
done; cmp /tmp/main-$g-$p.csv /tmp/new-$g-$p.csv && echo "answers identical $g $p"; done; done
E=48,56,64,80,96,128
for round in 1 2 3; do for g in gd gt; do for p in half single; do for b in main new; do X=/tmp/bin/subgraph; [ $b = main ] && X=/tmp/bin/subgraph-main
  timeout 90 $X ann bench $D/$g.sgi $D/query.fvecs --max-queries 10000 --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
    --precision $p --out $OUT/raw/$b-$g-$p-$round > /dev/null 2>&1
  echo "$b $g $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$b-$g-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done; done; echo "round $round $SECONDS"; done
for q in 1 2500 5000 20000 40000; do for b in main new; do X=/tmp/bin/subgraph; [ $b = main ] && X=/tmp/bin/subgraph-main
  r=10; [ $q = 1 ] && r=50
  timeout 90 $X ann bench $D/gt.sgi $D/query.fvecs --max-queries $q --ground-truth $D/gt.ivecs --device gpu --efs 64,80 --runs $r \
    --precision half --out $OUT/raw/batch-$b-$q > /dev/null 2>&1
  echo "batch $q $b rc $? $(cut -d, -f7,8,9 $OUT/raw/batch-$b-$q/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
