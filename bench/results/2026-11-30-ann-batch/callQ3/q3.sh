#!/bin/bash
# Device call Q3: N updated by rank instead of sort and merge, and the descent inside the search kernel; old (main e33d478) against new, interleaved.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
O=$PWD/.device-bin/subgraph; N=$PWD/.device-bin/subgraph-new
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 120 $O gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
for r in 1 2; do for b in old new; do B=$O; [ $b = new ] && B=$N
  timeout 90 $B ann build $D/base.fvecs --output $D/h-$b.sgi --device gpu > $OUT/raw/build-$b-$r.json 2>/dev/null; echo "$b build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$b-$r.json)"
done; done
cmp $D/h-old.sgi $D/h-new.sgi && echo "index identical"
E=10,16,24,32,48,64,96,128,192,256
for round in 1 2 3; do for p in single half; do for b in old new; do B=$O; [ $b = new ] && B=$N
  timeout 90 $B ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --precision $p --out $OUT/raw/$b-$p-$round > /dev/null 2>&1; echo "$b $p $round rc $? $(cut -d, -f7,9 $OUT/raw/$b-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done; done
for p in single half; do for ef in 10 64 256; do
  for b in old new; do B=$O; [ $b = new ] && B=$N
    timeout 60 $B ann search $D/h-old.sgi $D/query.fvecs --ef $ef --device gpu --precision $p -o /tmp/$b-$p-$ef.csv > /dev/null 2>&1 || echo "search $b $p $ef failed"; done
  cmp /tmp/old-$p-$ef.csv /tmp/new-$p-$ef.csv && echo "answers identical $p ef $ef"
done; done
timeout 240 .device-bin/ann-gpu --test-threads 2 > $OUT/raw/gpu-tests.txt 2>&1; echo "gpu tests rc $? $(grep 'test result' $OUT/raw/gpu-tests.txt)"
timeout 120 .device-bin/ann-gpu-build --test-threads 2 > $OUT/raw/gpu-build-tests.txt 2>&1; echo "gpu build tests rc $? $(grep 'test result' $OUT/raw/gpu-build-tests.txt)"
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
