#!/usr/bin/env bash
# Device call 11, the final code (0a285d0): the devices and engine test executables; tree
# patterns counted through the engine runner (`Engine::count_tree`) under --device cpu, gpu and
# auto, on HPRD (auto: the CPU) and G3 (auto: the GPU, opened by the first query).
set -u
O=$OUT; R=/tmp/r11; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
for t in devices engine; do
  timeout 400 .device-bin/tests/$t > $R/test-$t.txt 2>&1; echo "$t exit $?" >> $R/tests.txt
done
tar czf $O/call11.tgz -C $R .
sg=.device-bin/subgraph
OUT=$R/gen timeout 120 bench/gpu-bench.sh g3-graph > $R/gen.txt 2>&1
for dev in cpu gpu auto; do
  for p in 'MATCH (a)--(b:3)--(c) RETURN count(*)' 'MATCH (a:1)--(b)--(c:1), (b)--(d) RETURN count(*)'; do
    timeout 60 $sg match --format json --device $dev .device-bin/data/hprd/HPRD.graph --pattern "$p" >> $R/tree-hprd-$dev.jsonl 2>> $R/tree-hprd-$dev.err
    timeout 60 $sg match --format json --device $dev /tmp/G3.sgb --pattern "$p" >> $R/tree-g3-$dev.jsonl 2>> $R/tree-g3-$dev.err
  done
done
tar czf $O/call11.tgz -C $R .
