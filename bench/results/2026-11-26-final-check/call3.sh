#!/usr/bin/env bash
# Device call 3 (one H200): `--mmap` (issue 13 item 4) on the 10^9-edge R-MAT graph of
# 2026-11-26-multi-gpu.md (same generator and seed), copied against mapped: the load (info's
# load_ms and peak RSS), then three queries on the GPU and one on the CPU; and the GPU test
# executables on the new build.
set -u
O=$OUT; R=/tmp/r3; mkdir -p $R
b=.device-bin; sg=$b/subgraph
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
for t in $b/tests/*; do
  timeout 200 $t > $R/test-$(basename $t).log 2>&1; echo "rc $?" >> $R/test-$(basename $t).log
done
tar czf $O/call3.tgz -C $R .
g=/tmp/rmat-256.sgb
/usr/bin/time -v timeout 240 $sg gen graph --model rmat --vertices 67108864 --edges 1000000000 --vertex-labels 256 \
    --label-dist uniform --seed 7 --output $g > $R/gen.txt 2>&1
ls -l $g >> $R/gen.txt; free -g >> $R/gen.txt
for spec in dense:8 sparse:8; do
  timeout 60 $sg gen queries $g --size ${spec#*:} --count 3 --kind ${spec%:*} --seed 3 --output /tmp/q/${spec%:*}-${spec#*:}
done
qs="/tmp/q/dense-8/query_dense_8_1.graph /tmp/q/dense-8/query_dense_8_2.graph /tmp/q/sparse-8/query_sparse_8_1.graph"
for m in off on off on; do
  /usr/bin/time -v timeout 120 $sg info --format json --mmap $m $g >> $R/info-$m.txt 2>&1
done
for m in off on; do
  # shellcheck disable=SC2086
  /usr/bin/time -v timeout 120 $sg match -q --format json --device gpu --gpu-filter refined --mmap $m --timeout 12 $g $qs \
      > $R/match-gpu-$m.jsonl 2> $R/match-gpu-$m.err
  /usr/bin/time -v timeout 120 $sg match -q --format json --device cpu --mmap $m --timeout 20 $g /tmp/q/dense-8/query_dense_8_1.graph \
      > $R/match-cpu-$m.jsonl 2> $R/match-cpu-$m.err
done
tar czf $O/call3.tgz -C $R .
