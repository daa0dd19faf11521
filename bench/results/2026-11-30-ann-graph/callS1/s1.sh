#!/bin/bash
# Device call S1: rows staged in shared memory by cp.async (SUBGRAPH_ANN_STAGE rows at a time)
# against none, 1M x 128, both precisions, interleaved; graphs of a larger construction bound;
# exactness of the staged search; the GPU tests with staging on.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
B=/tmp/bin/subgraph
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
timeout 120 $B gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
for c in 64 96 128; do
  timeout 120 $B ann build $D/base.fvecs --output $D/c$c.sgi --ef-construction $c --device gpu > $OUT/raw/build-c$c.json 2>/dev/null
  echo "build efC $c rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-c$c.json)"
done
timeout 120 $B ann build $D/base.fvecs --output $D/again.sgi --device gpu > $OUT/raw/build-again.json 2>/dev/null
echo "build again (warm) rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-again.json)"
E=32,48,64,80,96,128
bench() { # name env index precision round
  env $2 timeout 90 $B ann bench $D/$3.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
    --precision $4 --out $OUT/raw/$1-$3-$4-$5 > /dev/null 2>&1
  echo "$1 $3 $4 $5 rc $? $(cut -d, -f7,8,9 $OUT/raw/$1-$3-$4-$5/ann.csv | tail -n +2 | tr '\n' ' ')"
}
V="base:X=0 st4:SUBGRAPH_ANN_STAGE=4 st8:SUBGRAPH_ANN_STAGE=8 st16:SUBGRAPH_ANN_STAGE=16 st32:SUBGRAPH_ANN_STAGE=32 hs512:SUBGRAPH_ANN_VISITED=512"
for round in 1 2; do for p in half single; do for v in $V; do bench ${v%%:*} ${v#*:} c64 $p $round; done; done; done
for c in 96 128; do for v in base:X=0 st8:SUBGRAPH_ANN_STAGE=8 st16:SUBGRAPH_ANN_STAGE=16; do bench ${v%%:*} ${v#*:} c$c half 1; done; done
for p in single half; do for ef in 64 96; do
  for v in base:X=0 st8:SUBGRAPH_ANN_STAGE=8 st16:SUBGRAPH_ANN_STAGE=16; do
    env ${v#*:} timeout 60 $B ann search $D/c64.sgi $D/query.fvecs --ef $ef --device gpu --precision $p -o /tmp/${v%%:*}-$p-$ef.csv > /dev/null 2>&1 || echo "search ${v%%:*} $p $ef failed"; done
  cmp /tmp/base-$p-$ef.csv /tmp/st8-$p-$ef.csv && cmp /tmp/base-$p-$ef.csv /tmp/st16-$p-$ef.csv && echo "answers identical $p ef $ef"
done; done
SUBGRAPH_ANN_STAGE=8 timeout 240 /tmp/bin/ann-gpu --test-threads 2 > $OUT/raw/gpu-tests-st8.txt 2>&1; echo "gpu tests (stage 8) rc $? $(grep 'test result' $OUT/raw/gpu-tests-st8.txt)"
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
