#!/usr/bin/env bash
# Device call 5: G3 with the committed code (5e24586, .device-bin/old) against the change
# (call 2's change, plus the candidate bitsets built once per query and shared by the
# planner's samplers, and the gate's recheck as eight estimates in parallel), three rounds.
set -u
O=$OUT; R=/tmp/r5; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/device.txt 2>&1
OUT=$R/gen timeout 300 bench/gpu-bench.sh g3-graph > $R/gen.txt 2>&1
qs=$(ls /tmp/G3_q/*.graph | sort -V)
for k in 1 2 3; do
  for v in old new; do
    b=.device-bin/subgraph; [ $v = old ] && b=.device-bin/old/subgraph
    timeout 60 $b match -q --format json --device gpu --timeout 10 /tmp/G3.sgb $qs > $R/g3-$v-$k.jsonl 2> $R/g3-$v-$k.err
  done
done
tar czf $O/call5.tgz -C $R .
