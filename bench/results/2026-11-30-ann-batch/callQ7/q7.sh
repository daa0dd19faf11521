#!/bin/bash
# Device call Q7: 10M x 96 (ours alone, the issue's third set), bf0b0c6 (new; its kernels are fc32dd4's) against main e33d478 (old) on one index, interleaved.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
O=/tmp/bin/subgraph; N=/tmp/bin/subgraph-final2
D=/tmp/ann/g96x10m; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
timeout 150 $N gen vectors --count 10000000 --dim 96 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > $OUT/raw/gen.log 2>&1; echo "gen rc $? $SECONDS"
timeout 120 $N ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build.json) $SECONDS"
for round in 1 2; do for p in half single; do for b in old new; do B=$O; [ $b = new ] && B=$N
  timeout 60 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 16,32,48,64,96,128,192,256,384 --runs 5 --precision $p --out $OUT/raw/$b-$p-$round > /dev/null 2>&1; echo "$b $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$b-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ') t=$SECONDS"
done; done; done
for p in single half; do
  for b in old new; do B=$O; [ $b = new ] && B=$N
    timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef 96 --device gpu --precision $p -o /tmp/$b-$p.csv > /dev/null 2>&1 || echo "search $b $p failed"; done
  cmp /tmp/old-$p.csv /tmp/new-$p.csv && echo "answers identical $p ef 96"
done
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
