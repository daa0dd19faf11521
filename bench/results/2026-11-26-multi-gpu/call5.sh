#!/usr/bin/env bash
# Device call 5 (nvidia-h200-x2), after dealing rows heaviest first in claims of a share of the
# work: the multi-device test, then call 4's 10^9-edge graph again (same generator and seeds,
# so the same graph and queries) and its six queries that one GPU completed, on two GPUs.
set -u
O=$OUT; R=/tmp/r5; mkdir -p $R
b=.device-bin; sg=$b/subgraph
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
timeout 100 $b/tests/engine several_devices --nocapture > $R/test-several.log 2>&1; echo "rc $?" >> $R/test-several.log
tar czf $O/call5.tgz -C $R .
g=/tmp/rmat-256.sgb
timeout 200 $sg gen graph --model rmat --vertices 67108864 --edges 1000000000 --vertex-labels 256 \
    --label-dist uniform --seed 7 --output $g 2> $R/gen.txt
for spec in dense:8 sparse:8 dense:12; do
  timeout 60 $sg gen queries $g --size ${spec#*:} --count 3 --kind ${spec%:*} --seed 3 --output /tmp/q/${spec%:*}-${spec#*:}
done
qs="/tmp/q/dense-8/query_dense_8_1.graph /tmp/q/dense-8/query_dense_8_2.graph /tmp/q/dense-8/query_dense_8_3.graph
    /tmp/q/dense-12/query_dense_12_1.graph /tmp/q/sparse-8/query_sparse_8_1.graph /tmp/q/sparse-8/query_sparse_8_3.graph"
# shellcheck disable=SC2086
timeout 120 $sg match -q --format json --device gpu --gpu-filter refined --gpus 2 --timeout 12 $g $qs > $R/large-256-gpu2-full.jsonl 2> $R/match.err
tar czf $O/call5.tgz -C $R .
