#!/bin/bash
# Device call S4: queries read by the kernel from device-mapped host memory as the host writes
# them, piece by piece, one launch a batch (new) against main (a337015), on three graphs
# (the default; construction bound 128; links 22 and bound 112), both precisions, three
# interleaved rounds; exactness; the GPU tests.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 /tmp/bin/subgraph gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
G="g32-16-64:32:16:64 g32-16-128:32:16:128 g32-22-112:32:22:112"
for g in $G; do IFS=: read n deg dmin c <<< "$g"
  timeout 150 /tmp/bin/subgraph ann build $D/base.fvecs --output $D/$n.sgi --degree $deg --d-min $dmin --ef-construction $c --device gpu > $OUT/raw/build-$n.json 2>/dev/null
  echo "build $n rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$n.json)"
done
E=32,40,48,56,64,80
for round in 1 2 3; do for p in half single; do for g in $G; do n=${g%%:*}; for b in main new; do
  B=/tmp/bin/subgraph; [ $b = main ] && B=/tmp/bin/subgraph-main
  timeout 90 $B ann bench $D/$n.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
    --precision $p --out $OUT/raw/$b-$n-$p-$round > /dev/null 2>&1
  echo "$b $n $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$b-$n-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done; done; done
for p in single half; do for ef in 10 64 256; do
  for b in main new; do B=/tmp/bin/subgraph; [ $b = main ] && B=/tmp/bin/subgraph-main
    timeout 60 $B ann search $D/g32-16-64.sgi $D/query.fvecs --ef $ef --device gpu --precision $p -o /tmp/$b-$p-$ef.csv > /dev/null 2>&1 || echo "search $b $p $ef failed"; done
  cmp /tmp/main-$p-$ef.csv /tmp/new-$p-$ef.csv && echo "answers identical $p ef $ef"
done; done
timeout 240 /tmp/bin/ann-gpu --test-threads 2 > $OUT/raw/gpu-tests.txt 2>&1; echo "gpu tests rc $? $(grep 'test result' $OUT/raw/gpu-tests.txt)"
grep -E "single-query|recall@10 at ef 64" $OUT/raw/gpu-tests.txt
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
