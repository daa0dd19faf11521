#!/bin/bash
# Device call S3: around the best graphs of S2 (links a vector makes 18-24, construction bound 96-160,
# degree 28 and 32): build time and search speed at recall 0.95, 1M x 128, main's binary (a337015).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
B=/tmp/bin/subgraph
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $B gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
G="g32-20-96:32:20:96 g32-20-128:32:20:128 g32-20-160:32:20:160 g32-24-96:32:24:96 g32-24-128:32:24:128 g32-18-128:32:18:128 g28-20-128:28:20:128 g32-22-112:32:22:112"
for try in cold warm; do for g in $G; do IFS=: read n deg dmin c <<< "$g"
  timeout 150 $B ann build $D/base.fvecs --output $D/$n.sgi --degree $deg --d-min $dmin --ef-construction $c --device gpu > $OUT/raw/build-$n-$try.json 2>/dev/null
  echo "build $n $try rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$n-$try.json)"
done; done
E=32,40,48,56,64,80
for rp in 1:half 2:half 3:half 1:single; do round=${rp%%:*} p=${rp#*:}; for g in $G; do n=${g%%:*}
  timeout 90 $B ann bench $D/$n.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
    --precision $p --out $OUT/raw/$n-$p-$round > /dev/null 2>&1
  echo "$n $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$n-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
