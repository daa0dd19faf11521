#!/usr/bin/env bash
# Call 4 (one H200): the GPU's time per unit of the planner's GPU-priced cost (the report's new
# priced_cost) on the current code, for H200_COSTS.gpu_ns_per_unit (0.08, calibrated on
# 2026-11-24 code); each set counted with the spasm off (every count enumerated) and under
# --spasm auto (the choices the constant makes now): G1's dense queries, G3's 16, the heavy
# set (bench/queries/heavy), and the R-MAT graph of call 3 with its 24 queries.
set -u
O=$OUT; R=/tmp/r4; mkdir -p $R
b=bench/gpu-bench.sh; sg=.device-bin/subgraph
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt
t0=$SECONDS
OUT=$R HEAVY_VARIANTS="gpu gpu-enum" HEAVY_QUERIES=5 HEAVY_TIMEOUT=10 timeout 150 $b heavy
echo "G1 at $((SECONDS - t0)) s"
OUT=$R HEAVY_VARIANTS="gpu gpu-enum" HEAVY_TIMEOUT=10 timeout 100 $b g3-variants
echo "G3 at $((SECONDS - t0)) s"
OUT=$R HEAVY_VARIANTS="gpu gpu-enum" HEAVY_TIMEOUT=5 timeout 200 $b heavy-set
echo "heavy set at $((SECONDS - t0)) s"
g=/tmp/rmat.sgb
$sg gen graph --model rmat --vertices 8388608 --edges 100000000 --vertex-labels 256 \
  --label-dist uniform --seed 7 --output $g 2> $R/gen.txt
for spec in dense:8 sparse:8 dense:12 sparse:12; do
  $sg gen queries $g --size "${spec#*:}" --count 6 --kind "${spec%:*}" --seed 3 --output "/tmp/q/${spec%:*}-${spec#*:}" > /dev/null
done
qs=$(find /tmp/q -name '*.graph' | sort -V)
for v in "gpu" "gpu-enum --spasm off"; do
  # shellcheck disable=SC2086
  timeout 80 $sg match -q --format json --device gpu --timeout 10 ${v#* } $g $qs > $R/rmat-${v%% *}.jsonl 2> $R/rmat-${v%% *}.err
done
echo "rmat at $((SECONDS - t0)) s"
tar czf $O/call4.tgz -C $R .
