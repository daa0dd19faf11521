#!/usr/bin/env bash
# Device call 2: G3 with the committed code (5e24586, .device-bin/old) against the change
# (free memory asked of the driver once per query and for large allocations, uploads without
# a memset, the comparison's two estimates in parallel), three alternated rounds; then the
# device and kernel test executables on the change.
set -u
O=$OUT; R=/tmp/r2; mkdir -p $R
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
tar czf $O/call2.tgz -C $R .
for t in device subgraph_gpu nvrtc; do
  timeout 200 .device-bin/tests/$t > $R/test-$t.txt 2>&1; echo "$t exit $?" >> $R/tests.txt
done
tar czf $O/call2.tgz -C $R .
