# Device call 8 (waiting warps race for an entry without touching the at-work count, and back
# off; D_MIN_BLOCKS_COUNT / _TAILS 6 / 6 in `subgraph`, variant binaries c4t4, c8t6 and c6t5
# built with only those two #defines changed): the DFS tests, G3 three rounds each, G1's dense
# queries by enumeration at the default frontier, 2^20 and 2^16.
r=/tmp/r8; mkdir -p $r
snap() { tar czf "$OUT/call8.tgz" -C /tmp r8; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 240 .device-bin/tests/engine --nocapture stolen_partial depth_first_counts >$r/test-dfs.log 2>&1
echo "tests rc=$?" >> $r/test-dfs.log; snap
cp .device-bin/subgraph .device-bin/subgraph-c6t6
OUT=$r timeout 120 bench/gpu-bench.sh g3-graph; snap
qs3=$(ls /tmp/G3_q/*.graph | sort -V)
for round in 1 2 3; do
  for v in c6t6 c4t4 c8t6 c6t5; do
    # shellcheck disable=SC2086
    timeout 60 .device-bin/subgraph-$v match -q --format json --device gpu --timeout 15 /tmp/G3.sgb $qs3 >$r/g3-$v-$round.jsonl 2>$r/g3-$v-$round.err
  done
done
snap
OUT=$r timeout 150 bench/gpu-bench.sh g1-graph; snap
for v in c6t6 c4t4 c8t6 c6t5; do
  for f in 268435456 1048576 65536; do
    timeout 45 .device-bin/subgraph-$v match -q --format json --device gpu --spasm off --gpu-dfs-frontier $f --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph >$r/g1-$v-$f.jsonl 2>$r/g1-$v-$f.err
    snap
  done
done
