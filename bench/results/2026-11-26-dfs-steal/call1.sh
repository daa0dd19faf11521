# Device call 1 (work stealing in the depth-first kernel): the DFS tests, then G3 and G1 with
# stealing on and off, and a frontier sweep on G1's dense_8_4. Snapshots into $OUT/call1.tgz.
r=/tmp/r1; mkdir -p $r
snap() { tar czf "$OUT/call1.tgz" -C /tmp r1; }
sg=.device-bin/subgraph
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt; lscpu | head -20 > $r/lscpu.txt
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 240 .device-bin/tests/engine --nocapture stolen_partial depth_first_counts >$r/test-dfs.log 2>&1
echo "tests rc=$?" >> $r/test-dfs.log; snap
OUT=$r timeout 120 bench/gpu-bench.sh g3-graph; snap
qs3=$(ls /tmp/G3_q/*.graph | sort -V)
for round in 1 2 3; do
  for s in on off; do
    # shellcheck disable=SC2086
    timeout 60 $sg match -q --format json --device gpu --gpu-dfs-steal $s --timeout 15 /tmp/G3.sgb $qs3 >$r/g3-$s-$round.jsonl 2>$r/g3-$s-$round.err
  done
done
snap
OUT=$r timeout 150 bench/gpu-bench.sh g1-graph; snap
qs1=$(ls /tmp/G1_q/*.graph | sort -V)
for s in on off; do
  # shellcheck disable=SC2086
  timeout 80 $sg match -q --format json --device gpu --spasm off --gpu-dfs-steal $s --timeout 5 /tmp/G1.sgb $qs1 >$r/g1-enum-$s.jsonl 2>$r/g1-enum-$s.err
  snap
done
for f in 65536 16777216; do
  for s in on off; do
    timeout 30 $sg match -q --format json --device gpu --spasm off --gpu-dfs-frontier $f --gpu-dfs-steal $s --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_4.graph /tmp/G1_q/dense_8_1.graph >$r/g1-front$f-$s.jsonl 2>&1
    snap
  done
done
