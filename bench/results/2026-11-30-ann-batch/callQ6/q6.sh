#!/bin/bash
# Device call Q6: answers in the caller's numbering written by the kernel (final2, bf0b0c6) against 271444f (final) and main e33d478 (old), interleaved; exactness; GPU tests.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
B0=/tmp/bin/subgraph
timeout 120 $B0 gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
timeout 90 /tmp/bin/subgraph-final2 ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build.json)"
E=10,16,24,32,48,64,96,128,192,256
for round in 1 2 3; do for p in half single; do for b in old final final2; do B=$B0; [ $b = final ] && B=/tmp/bin/subgraph-final; [ $b = final2 ] && B=/tmp/bin/subgraph-final2
  timeout 90 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --precision $p --out $OUT/raw/$b-$p-$round > /dev/null 2>&1; echo "$b $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$b-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done; done
for p in single half; do for ef in 10 64 256; do
  for b in old final2; do B=$B0; [ $b = final2 ] && B=/tmp/bin/subgraph-final2
    timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision $p -o /tmp/$b-$p-$ef.csv > /dev/null 2>&1 || echo "search $b $p $ef failed"; done
  cmp /tmp/old-$p-$ef.csv /tmp/final2-$p-$ef.csv && echo "answers identical $p ef $ef"
done; done
timeout 240 /tmp/bin/ann-gpu --test-threads 2 > $OUT/raw/gpu-tests.txt 2>&1; echo "gpu tests rc $? $(grep 'test result' $OUT/raw/gpu-tests.txt)"
grep -E "^test .*(FAILED|ok)$" $OUT/raw/gpu-tests.txt | head -20
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
