#!/bin/bash
# Device call S7: half precision's range checked by the conversion kernel at the first
# half-precision search instead of a host scan at every GpuIndex::new (new) against main
# (a337015): a search's wall time, both precisions, the same answers; the GPU tests.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 /tmp/bin/subgraph gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
timeout 150 /tmp/bin/subgraph ann build $D/base.fvecs --output $D/h.sgi --device gpu > /dev/null 2>&1; echo "build rc $?"
for b in main new; do B=/tmp/bin/subgraph; [ $b = main ] && B=/tmp/bin/subgraph-main
  timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu -o /dev/null > /dev/null 2>&1; done
for round in 1 2 3; do for p in single half; do for b in main new; do B=/tmp/bin/subgraph; [ $b = main ] && B=/tmp/bin/subgraph-main
  s=$(date +%s%N); timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu --precision $p -o /tmp/$b-$p.csv > /dev/null 2>&1; rc=$?
  echo "search $b $p $round rc $rc wall_ms $(( ($(date +%s%N) - s) / 1000000 ))"
done; cmp /tmp/main-$p.csv /tmp/new-$p.csv && echo "answers identical $p"; done; done
for round in 1 2; do for b in main new; do B=/tmp/bin/subgraph; [ $b = main ] && B=/tmp/bin/subgraph-main
  timeout 90 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 48,64 --runs 10 --precision half --out $OUT/raw/$b-$round > /dev/null 2>&1
  echo "bench $b half $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$b-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done
timeout 200 /tmp/bin/ann-gpu --test-threads 2 > $OUT/raw/gpu-tests.txt 2>&1; echo "gpu tests rc $? $(grep 'test result' $OUT/raw/gpu-tests.txt)"
grep -E "FAILED|panicked" $OUT/raw/gpu-tests.txt | head
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
