#!/usr/bin/env bash
# Device call 2 (nvidia-h200-x2), after fewer claims per query, the 80 ms sharing threshold and
# the 250 µs polling cap: G3, the heavy set and G1's three 10-s queries, one and two GPUs
# alternated; the multi-device test again.
set -u
O=$OUT; R=/tmp/r2; mkdir -p $R
b=.device-bin; sg=$b/subgraph
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
timeout 200 $b/tests/engine several_devices --nocapture > $R/test-several.log 2>&1; echo "rc $?" >> $R/test-several.log
export OUT=$R
for i in 1 2; do
  for v in gpu gpu2; do
    HEAVY_VARIANTS=$v HEAVY_TIMEOUT=10 timeout 150 bash bench/gpu-bench.sh g3-variants > /dev/null 2>&1
    mv $R/g3h-$v.jsonl $R/g3h-$v-$i.jsonl
    HEAVY_VARIANTS=$v HEAVY_TIMEOUT=10 timeout 150 bash bench/gpu-bench.sh heavy-set > /dev/null 2>&1
    for g in yeast hprd wordnet rmat16k; do mv $R/hv-$g-$v.jsonl $R/hv-$g-$v-$i.jsonl; done
  done
done
tar czf $O/call2.tgz -C $R .
( cd /tmp && timeout 100 python3 $OLDPWD/$b/bigraph_gen.py graph --scale 20 --edge-factor 16 --labels 32 --alpha 1.0 \
    --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) > $R/g1-gen.txt 2>&1
timeout 60 $sg convert /tmp/G1.graph /tmp/G1.sgb >> $R/g1-gen.txt 2>&1
for v in "gpu:--device gpu" "gpu2:--device gpu --gpus 2"; do
  timeout 100 $sg match -q --format json ${v#*:} --timeout 15 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph \
      /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph > $R/g1-${v%%:*}.jsonl 2> $R/g1-${v%%:*}.err
done
tar czf $O/call2.tgz -C $R .
