#!/bin/bash
# Device call S6: the search kernel's launch bound, rows in flight and visited set (environment
# overrides of main's a337015, no code change) on the default graph and the d_min 20 /
# ef_construction 128 graph, 1M x 128; then the GPU tests under the bound-12 variant.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/bin && tar xJf .device-bin/bins.tar.xz -C /tmp/bin
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
B=/tmp/bin/subgraph
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $B gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
timeout 150 $B ann build $D/base.fvecs --output $D/g32-16-64.sgi --device gpu > /dev/null 2>&1; echo "build default rc $?"
timeout 150 $B ann build $D/base.fvecs --output $D/g32-20-128.sgi --d-min 20 --ef-construction 128 --device gpu > /dev/null 2>&1; echo "build d20 c128 rc $?"
V="A:X=0 B:SUBGRAPH_ANN_MIN_BLOCKS=12,SUBGRAPH_ANN_VISITED=512 D:SUBGRAPH_ANN_MIN_BLOCKS=16,SUBGRAPH_ANN_ROWS=1,SUBGRAPH_ANN_VISITED=512 E:SUBGRAPH_ANN_MIN_BLOCKS=16,SUBGRAPH_ANN_ROWS=1,SUBGRAPH_ANN_VISITED=256"
E=40,48,56,64,80
for rg in 1:g32-20-128 1:g32-16-64 2:g32-20-128 2:g32-16-64 3:g32-20-128; do round=${rg%%:*} n=${rg#*:}
  for p in half single; do for v in $V; do name=${v%%:*}; envs=$(echo ${v#*:} | tr , ' ')
    env $envs timeout 90 $B ann bench $D/$n.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
      --precision $p --out $OUT/raw/$name-$n-$p-$round > /dev/null 2>&1
    echo "$name $n $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$name-$n-$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done; done
for p in single half; do for ef in 48 64; do
  for v in A:X=0 B:SUBGRAPH_ANN_MIN_BLOCKS=12,SUBGRAPH_ANN_VISITED=512 D:SUBGRAPH_ANN_MIN_BLOCKS=16,SUBGRAPH_ANN_ROWS=1,SUBGRAPH_ANN_VISITED=512; do
    env $(echo ${v#*:} | tr , ' ') timeout 60 $B ann search $D/g32-20-128.sgi $D/query.fvecs --ef $ef --device gpu --precision $p -o /tmp/${v%%:*}-$p-$ef.csv > /dev/null 2>&1 || echo "search ${v%%:*} $p $ef failed"; done
  cmp /tmp/A-$p-$ef.csv /tmp/B-$p-$ef.csv && cmp /tmp/A-$p-$ef.csv /tmp/D-$p-$ef.csv && echo "answers identical $p ef $ef"
done; done
SUBGRAPH_ANN_MIN_BLOCKS=12 SUBGRAPH_ANN_VISITED=512 timeout 200 /tmp/bin/ann-gpu --test-threads 2 > $OUT/raw/gpu-tests-B.txt 2>&1; echo "gpu tests (B) rc $? $(grep 'test result' $OUT/raw/gpu-tests-B.txt)"
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
