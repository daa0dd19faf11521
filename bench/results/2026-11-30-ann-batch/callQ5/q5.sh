#!/bin/bash
# Device call Q5: the commit (final, 271444f) against main (old, e33d478): search, exactness, GPU tests; a diagnostic build's host timeline of a batch (diag-host.patch); batch sizes.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
O=/tmp/bin/subgraph; N=/tmp/bin/subgraph-final; X=/tmp/bin/subgraph-diag
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 120 $O gen vectors --count 1000000 --dim 128 --queries 100000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
for r in 1 2; do for b in old final; do B=$O; [ $b = final ] && B=$N
  timeout 90 $B ann build $D/base.fvecs --output $D/h-$b.sgi --device gpu > $OUT/raw/build-$b-$r.json 2>/dev/null; echo "$b build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$b-$r.json)"
done; done
cmp $D/h-old.sgi $D/h-final.sgi && echo "index identical"
E=10,16,24,32,48,64,96,128,192,256
for round in 1 2 3; do for p in half single; do for b in old final; do B=$O; [ $b = final ] && B=$N
  timeout 90 $B ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --precision $p --max-queries 10000 --out $OUT/raw/$b-$p-$round > /dev/null 2>&1; echo "$b $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$b-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done; done
for p in single half; do for ef in 10 64 256; do
  for b in old final; do B=$O; [ $b = final ] && B=$N
    timeout 60 $B ann search $D/h-old.sgi $D/query.fvecs --ef $ef --device gpu --precision $p --max-queries 10000 -o /tmp/$b-$p-$ef.csv > /dev/null 2>&1 || echo "search $b $p $ef failed"; done
  cmp /tmp/old-$p-$ef.csv /tmp/final-$p-$ef.csv && echo "answers identical $p ef $ef"
done; done
for ef in 10 64; do
  timeout 60 $X ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $ef --runs 8 --precision half --max-queries 10000 --out $OUT/raw/diag-$ef > /dev/null 2> $OUT/raw/diag-$ef.txt; echo "diag $ef rc $? $(tail -1 $OUT/raw/diag-$ef/ann.csv)"; tail -4 $OUT/raw/diag-$ef.txt
done
for m in 2500 5000 10000 20000 40000 100000; do
  timeout 60 $N ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 10,64,96 --runs 5 --precision half --max-queries $m --out $OUT/raw/bs-$m > /dev/null 2>&1; echo "bs $m rc $? $(cut -d, -f7,9,10 $OUT/raw/bs-$m/ann.csv | tail -3 | tr '\n' ' ')"
done
timeout 240 /tmp/bin/ann-gpu --test-threads 2 > $OUT/raw/gpu-tests.txt 2>&1; echo "gpu tests rc $? $(grep 'test result' $OUT/raw/gpu-tests.txt)"
timeout 120 /tmp/bin/ann-gpu-build --test-threads 2 > $OUT/raw/gpu-build-tests.txt 2>&1; echo "gpu build tests rc $? $(grep 'test result' $OUT/raw/gpu-build-tests.txt)"
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
