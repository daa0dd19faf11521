#!/usr/bin/env bash
# Device call 2 (nvidia-h*-x2): call 1's graph and its three heavy queries (a second and more
# on one GPU), with --spasm off: in call 1 the planner counted them by their spasm on the
# host's cores under --device gpu. Counted in core and partitioned (--gpu-memory at half the
# in-core peak P, and at a quarter of the in-core graph G), on one GPU and on two.
set -u
O=$OUT; R=/tmp/r2; mkdir -p $R
b=.device-bin; sg=$b/subgraph
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt
g=/tmp/rmat-256.sgb
/usr/bin/time -v timeout 240 $sg gen graph --model rmat --vertices 67108864 --edges 1000000000 --vertex-labels 256 \
    --label-dist uniform --seed 7 --output $g 2> $R/gen.txt
for spec in sparse:8 dense:12; do
  timeout 60 $sg gen queries $g --size ${spec#*:} --count 3 --kind ${spec%:*} --seed 3 --output /tmp/q/${spec%:*}-${spec#*:}
done
qs="/tmp/q/dense-12/query_dense_12_1.graph /tmp/q/sparse-8/query_sparse_8_1.graph /tmp/q/sparse-8/query_sparse_8_3.graph"
P=16976005716 G=16775627032
run() { # name flags...
  local name=$1; shift
  echo "$SECONDS $name" >> $R/progress.txt
  # shellcheck disable=SC2086
  /usr/bin/time -v timeout 120 $sg match -q --format json --device gpu --gpu-filter refined --spasm off --timeout 25 "$@" $g $qs \
      > $R/$name.jsonl 2> $R/$name.err
  tar czf $O/call2.tgz -C $R .
}
run incore-1 --gpu-partitions off
run half-2 --gpu-memory $((P / 2)) --gpus 2
run half-1 --gpu-memory $((P / 2))
[ $SECONDS -lt 440 ] && run quarter-of-graph-2 --gpu-memory $((G / 4)) --gpus 2
[ $SECONDS -lt 480 ] && run incore-2 --gpu-partitions off --gpus 2
[ $SECONDS -lt 520 ] && run quarter-of-graph-1 --gpu-memory $((G / 4))
echo "$SECONDS end" >> $R/progress.txt
tar czf $O/call2.tgz -C $R .
