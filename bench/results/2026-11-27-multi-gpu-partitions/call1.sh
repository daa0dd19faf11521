#!/usr/bin/env bash
# Device call 1 (nvidia-h*-x2): the 10^9-edge graph of 2026-11-26's calls 4-5 (same generator
# and seeds, so the same graph and queries), its six queries that one GPU completed, counted
# in core and partitioned (--gpu-memory at half the in-core peak P, and at a quarter of the
# in-core graph G), each on one GPU and on two, alternated.
set -u
O=$OUT; R=/tmp/r1; mkdir -p $R
b=.device-bin; sg=$b/subgraph
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt; nproc >> $R/gpu.txt; free -g >> $R/gpu.txt
g=/tmp/rmat-256.sgb
/usr/bin/time -v timeout 240 $sg gen graph --model rmat --vertices 67108864 --edges 1000000000 --vertex-labels 256 \
    --label-dist uniform --seed 7 --output $g 2> $R/gen.txt
$sg info --format json $g > $R/info.json
for spec in dense:8 sparse:8 dense:12; do
  timeout 60 $sg gen queries $g --size ${spec#*:} --count 3 --kind ${spec%:*} --seed 3 --output /tmp/q/${spec%:*}-${spec#*:}
done
qs="/tmp/q/dense-8/query_dense_8_1.graph /tmp/q/dense-8/query_dense_8_2.graph /tmp/q/dense-8/query_dense_8_3.graph
    /tmp/q/dense-12/query_dense_12_1.graph /tmp/q/sparse-8/query_sparse_8_1.graph /tmp/q/sparse-8/query_sparse_8_3.graph"
tar czf $O/call1.tgz -C $R .
run() { # name timeout flags...
  local name=$1 t=$2; shift 2
  echo "$SECONDS $name" >> $R/progress.txt
  # shellcheck disable=SC2086
  /usr/bin/time -v timeout 150 $sg match -q --format json --device gpu --gpu-filter refined --timeout $t "$@" $g $qs \
      > $R/$name.jsonl 2> $R/$name.err
  tar czf $O/call1.tgz -C $R .
}
run incore-1 12 --gpu-partitions off
run incore-2 12 --gpu-partitions off --gpus 2
P=$(python3 -c "import json,sys; print(max(json.loads(l).get('peak_device_bytes') or 0 for l in open(sys.argv[1])))" $R/incore-1.jsonl)
G=$(python3 -c "import json,sys; print(min(json.loads(l)['space_bytes'] for l in open(sys.argv[1]) if json.loads(l)['space_bytes'] > 0))" $R/incore-1.jsonl)
echo "P=$P G=$G" > $R/budgets.txt
run half-1 20 --gpu-memory $((P / 2))
run half-2 20 --gpu-memory $((P / 2)) --gpus 2
[ $SECONDS -lt 420 ] && run quarter-of-graph-1 20 --gpu-memory $((G / 4))
[ $SECONDS -lt 480 ] && run quarter-of-graph-2 20 --gpu-memory $((G / 4)) --gpus 2
[ $SECONDS -lt 520 ] && run incore-1b 12 --gpu-partitions off
echo "$SECONDS end" >> $R/progress.txt
tar czf $O/call1.tgz -C $R .
