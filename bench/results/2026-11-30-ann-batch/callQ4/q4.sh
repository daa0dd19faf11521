#!/bin/bash
# Device call Q4: the rank insert alone (ins), with the descent inside the search kernel (new, 56 registers: 9 blocks), and that at launch bound 10 (new10: 48 registers, 10 blocks), against main (old); 128 and 960 dimensions.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
O=/tmp/bin/subgraph; N=/tmp/bin/subgraph-new; I=/tmp/bin/subgraph-ins
D=/tmp/ann/g128; G=/tmp/ann/g960; mkdir -p $D $G $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
timeout 120 $O gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
timeout 90 $O ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build.json)"
run() { # name precision dir efs runs
  local v=$1 p=$2 dir=$3 efs=$4 runs=$5 B=$O mb=8
  case $v in ins) B=$I;; new) B=$N;; new10) B=$N; mb=10;; esac
  SUBGRAPH_ANN_MIN_BLOCKS=$mb timeout 90 $B ann bench $dir/h.sgi $dir/query.fvecs --ground-truth $dir/gt.ivecs --device gpu --efs $efs --runs $runs --precision $p --out $OUT/raw/$(basename $dir)-$v-$p-$round > /dev/null 2>&1
  echo "$(basename $dir) $v $p $round rc $? $(cut -d, -f7,9 $OUT/raw/$(basename $dir)-$v-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
}
for round in 1 2 3; do for p in half single; do for v in old ins new new10; do run $v $p $D 10,16,24,32,48,64,96,128,192,256 10; done; done; done
for ef in 64 256; do for p in single half; do
  for v in old new; do B=$O; [ $v = new ] && B=$N
    SUBGRAPH_ANN_MIN_BLOCKS=10 timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision $p -o /tmp/$v-$p-$ef.csv > /dev/null 2>&1 || echo "search $v failed"; done
  cmp /tmp/old-$p-$ef.csv /tmp/new-$p-$ef.csv && echo "answers identical at bound 10: $p ef $ef"
done; done
timeout 200 $O gen vectors --count 1000000 --dim 960 --queries 10000 --gt-k 100 \
  --output $G/base.fvecs --queries-output $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen960 rc $? $SECONDS"
timeout 90 $N ann build $G/base.fvecs --output $G/h.sgi --device gpu > $OUT/raw/build960.json 2>/dev/null; echo "build960 rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build960.json)"
for round in 1 2; do for p in half single; do for v in old new new10; do run $v $p $G 10,32,64,128,256 5; done; done; done
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
