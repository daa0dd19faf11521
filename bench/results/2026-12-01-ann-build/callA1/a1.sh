#!/bin/bash
# Device call A1 (issue 40): the search's L2 prefetches (SUBGRAPH_ANN_PREFETCH 0-7) against main
# (e8b7d7d), and the builder's diverse selection ROWS rows at a time, in one lease.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
cd .device-bin && for f in *.gz; do gunzip -f $f; done; chmod +x subgraph-* gpu-*; cd ..
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
D=/tmp/ann/g128; mkdir -p $D $OUT/raw; export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
B=.device-bin/subgraph-base N=.device-bin/subgraph-new
timeout 120 $B gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs \
  --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
for try in cold warm; do for b in base new; do X=$B; [ $b = new ] && X=$N
  timeout 100 $X ann build $D/base.fvecs --output $D/gpu-$b.sgi --device gpu > $OUT/raw/build-$b-$try.json 2>/dev/null
  echo "build $b $try rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$b-$try.json)"; done; done
cmp $D/gpu-base.sgi $D/gpu-new.sgi && echo "index: new = base byte for byte"
SUBGRAPH_ANN_PREFETCH=7 timeout 100 $N ann build $D/base.fvecs --output $D/gpu-pf7.sgi --device gpu > $OUT/raw/build-pf7.json 2>/dev/null
SUBGRAPH_ANN_PREFETCH=7 timeout 100 $N ann build $D/base.fvecs --output $D/gpu-pf7.sgi --device gpu > $OUT/raw/build-pf7.json 2>/dev/null
echo "build pf7 warm rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-pf7.json)"
cmp $D/gpu-base.sgi $D/gpu-pf7.sgi && echo "index: pf7 = base byte for byte"
I=$D/gpu-base.sgi; E=40,48,56,64,80,96,128
bench() { # name precision env...
  local name=$1 p=$2; shift 2
  env "$@" timeout 90 $X ann bench $I $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
    --precision $p --out $OUT/raw/$name-$p-$round > /dev/null 2>&1
  echo "g$name $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$name-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"; }
for round in 1 2; do
  X=$B; bench base half A=1
  X=$N; for pf in 0 1 2 3 4 5 7; do bench pf$pf half SUBGRAPH_ANN_PREFETCH=$pf; done
  X=$B; bench base single A=1
  X=$N; for pf in 1 3; do bench pf$pf single SUBGRAPH_ANN_PREFETCH=$pf; done
  echo "round $round $SECONDS"; done
for pf in 0 7; do SUBGRAPH_ANN_PREFETCH=$pf timeout 60 $N ann search $I $D/query.fvecs --device gpu --ef 64 --precision half -o $OUT/raw/ans-$pf.ivecs > /dev/null 2>&1; done
cmp $OUT/raw/ans-0.ivecs $OUT/raw/ans-7.ivecs && echo "answers ef 64 half: pf7 = pf0"
python3 .device-bin/at95.py $OUT/log.txt
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
