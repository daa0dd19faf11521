# Device call 3 (stealing down to the last enumerated level, one-row claims again, busy time
# in SM cycles): as call 2 (the DFS tests; G3 on, off and d62b609; G1 dense queries at three
# frontiers; the enumeration-bound set). Snapshots into $OUT/call3.tgz.
r=/tmp/r3; mkdir -p $r
snap() { tar czf "$OUT/call3.tgz" -C /tmp r3; }
sg=.device-bin/subgraph
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 240 .device-bin/tests/engine --nocapture stolen_partial depth_first_counts >$r/test-dfs.log 2>&1
echo "tests rc=$?" >> $r/test-dfs.log; snap
OUT=$r timeout 120 bench/gpu-bench.sh g3-graph; snap
qs3=$(ls /tmp/G3_q/*.graph | sort -V)
for round in 1 2 3; do
  for v in on off old; do
    if [ $v = old ]; then b=.device-bin/subgraph-d62b609; f=; else b=$sg; f="--gpu-dfs-steal $v"; fi
    # shellcheck disable=SC2086
    timeout 60 $b match -q --format json --device gpu $f --timeout 15 /tmp/G3.sgb $qs3 >$r/g3-$v-$round.jsonl 2>$r/g3-$v-$round.err
  done
done
snap
OUT=$r timeout 150 bench/gpu-bench.sh g1-graph; snap
for f in 65536 1048576 268435456; do
  for s in on off; do
    timeout 45 $sg match -q --format json --device gpu --spasm off --gpu-dfs-frontier $f --gpu-dfs-steal $s --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph >$r/g1-front$f-$s.jsonl 2>$r/g1-front$f-$s.err
    snap
  done
done
timeout 30 .device-bin/subgraph-d62b609 match -q --format json --device gpu --spasm off --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph >$r/g1-old.jsonl 2>$r/g1-old.err
snap
OUT=$r HEAVY_VARIANTS="gpu gpu-nosteal" HEAVY_TIMEOUT=10 timeout 200 bench/gpu-bench.sh heavy-set
snap
