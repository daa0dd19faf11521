#!/usr/bin/env bash
# Device call 1 (nvidia-h200-x2): the multi-GPU test, G1/G3/heavy set on one and two GPUs, then
# every GPU test executable. Run from the repository root with .device-bin carried.
set -u
O=$OUT; R=/tmp/r1; mkdir -p $R
b=.device-bin; sg=$b/subgraph
nvidia-smi -L > $R/gpus.txt 2>&1; nproc >> $R/gpus.txt
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
timeout 200 $b/tests/engine several_devices --nocapture > $R/test-several.log 2>&1; echo "rc $?" >> $R/test-several.log
tar czf $O/call1.tgz -C $R .
export OUT=$R
# G1 (32 power-law labels) and its three queries that one GPU counts within 10 s.
( cd /tmp && timeout 100 python3 $OLDPWD/$b/bigraph_gen.py graph --scale 20 --edge-factor 16 --labels 32 --alpha 1.0 \
    --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) > $R/g1-gen.txt 2>&1
timeout 60 $sg convert /tmp/G1.graph /tmp/G1.sgb >> $R/g1-gen.txt 2>&1
for v in "gpu:--device gpu" "gpu2:--device gpu --gpus 2" "gpu-b:--device gpu" "gpu2-b:--device gpu --gpus 2"; do
  timeout 100 $sg match -q --format json ${v#*:} --timeout 15 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph \
      /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph > $R/g1-${v%%:*}.jsonl 2> $R/g1-${v%%:*}.err
done
tar czf $O/call1.tgz -C $R .
for v in gpu gpu2 gpu gpu2; do
  HEAVY_VARIANTS=$v HEAVY_TIMEOUT=10 timeout 150 bash bench/gpu-bench.sh g3-variants > /dev/null 2>&1
  mv $R/g3h-$v.jsonl $R/g3h-$v-$(date +%s).jsonl
done
HEAVY_VARIANTS="gpu gpu2" HEAVY_TIMEOUT=10 timeout 200 bash bench/gpu-bench.sh heavy-set > /dev/null 2>&1
tar czf $O/call1.tgz -C $R .
for t in subgraph_gpu device engine nvrtc; do
  timeout 300 $b/tests/$t > $R/test-$t.log 2>&1; echo "rc $?" >> $R/test-$t.log
done
tar czf $O/call1.tgz -C $R .
