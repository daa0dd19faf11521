#!/bin/bash
# Device call V1: the new build defaults (d_min five eighths of the degree, 20 of 32;
# ef_construction 128) against main's (9c14fd5: 16 and 64), in one lease: the 16-core CPU
# comparison with hnswlib (bench/ann/cpu16.sh, "ours" the new defaults, "main" main's), then
# the GPU build (cold, then warm) and search of both defaults, three interleaved rounds, both
# precisions; and the new binary given main's flags builds main's index byte for byte.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
THREADS=16 BASE_BUILD_ARGS="" BASE_SUBGRAPH=.device-bin/base-subgraph BASE_PROBE=.device-bin/base-ann_probe \
  timeout 330 bash bench/ann/cpu16.sh .device-bin/subgraph .device-bin/ann_probe $OUT/cpu16 > /dev/null 2>&1; echo "cpu16 rc $? $SECONDS"
grep -A6 "QPS (wall) at recall" $OUT/cpu16/cpu16.log; grep -A5 "Ratio to hnswlib (wall)" $OUT/cpu16/cpu16.log; grep "hnswlib: built\|build_seconds" $OUT/cpu16/cpu16.log | cut -c1-160
D=/tmp/ann/g128; mkdir -p $OUT/raw; export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
for try in cold warm; do for b in main new; do X=.device-bin/subgraph; [ $b = main ] && X=.device-bin/base-subgraph
  timeout 100 $X ann build $D/base.fvecs --output $D/gpu-$b.sgi --device gpu > $OUT/raw/build-$b-$try.json 2>/dev/null
  echo "gpu build $b $try rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$b-$try.json)"; done; done
timeout 100 .device-bin/subgraph ann build $D/base.fvecs --output $D/gpu-newold.sgi --d-min 16 --ef-construction 64 --device gpu > /dev/null 2>&1
cmp $D/gpu-newold.sgi $D/gpu-main.sgi && echo "new binary with --d-min 16 --ef-construction 64: main's index byte for byte"
E=40,48,56,64,80,96,128
for round in 1 2 3; do for p in half single; do for b in main new; do
  timeout 90 .device-bin/subgraph ann bench $D/gpu-$b.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
    --precision $p --out $OUT/raw/$b-$p-$round > /dev/null 2>&1
  echo "$b $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$b-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done; echo "round $round $SECONDS"; done
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
