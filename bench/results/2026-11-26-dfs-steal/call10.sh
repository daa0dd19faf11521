# Device call 10, after the review (fences of the ring's hand-over and read moved to lane 0
# around the flag, a waiting warp leaves only after two quiet looks in a row, no ring budget
# without stealing): the engine test executable, the depth-first kernel from the first level
# with stealing on and off against the CPU and the known counts on HPRD and yeast (as the GPU
# suite's *-dfs-first sets), then G3 (one round) and G1's dense queries at three frontiers.
r=/tmp/r10; mkdir -p $r
snap() { tar czf "$OUT/call10.tgz" -C /tmp r10; }
sg=.device-bin/subgraph
d=.device-bin/data
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 320 .device-bin/tests/engine >$r/test-engine.log 2>&1
echo "engine rc=$?" >> $r/test-engine.log; snap
hq=$(ls $d/hprd/queries/*.graph | head -n 200)
yq=$(cut -d' ' -f1 $d/yeast/expected.txt | head -n 200 | sed "s|^|$d/yeast/queries/|")
# shellcheck disable=SC2086
timeout 60 $sg match -q --format json --device cpu --timeout 20 $d/hprd/HPRD.graph $hq >$r/hprd-cpu.jsonl
# shellcheck disable=SC2086
timeout 60 $sg match -q --format json --device cpu --timeout 20 $d/yeast/yeast.graph $yq >$r/yeast-cpu.jsonl
for s in on off; do
  # shellcheck disable=SC2086
  timeout 100 $sg match -q --format json --device gpu --gpu-dfs on --gpu-dfs-frontier 1 --gpu-dfs-steal $s --timeout 20 $d/hprd/HPRD.graph $hq >$r/hprd-first-$s.jsonl
  python3 .device-bin/compare-counts.py $d/hprd/expected_output.res $r/hprd-cpu.jsonl $r/hprd-first-$s.jsonl hprd-first-$s | tail -n 1 >>$r/compare.txt
  # shellcheck disable=SC2086
  timeout 100 $sg match -q --format json --device gpu --gpu-dfs on --gpu-dfs-frontier 1 --gpu-dfs-steal $s --timeout 20 $d/yeast/yeast.graph $yq >$r/yeast-first-$s.jsonl
  python3 .device-bin/compare-counts.py $d/yeast/expected.txt $r/yeast-cpu.jsonl $r/yeast-first-$s.jsonl yeast-first-$s | tail -n 1 >>$r/compare.txt
done
snap
OUT=$r timeout 120 bench/gpu-bench.sh g3-graph
# shellcheck disable=SC2046
timeout 60 $sg match -q --format json --device gpu --timeout 15 /tmp/G3.sgb $(ls /tmp/G3_q/*.graph | sort -V) >$r/g3.jsonl 2>$r/g3.err
snap
OUT=$r timeout 150 bench/gpu-bench.sh g1-graph
for f in 268435456 1048576 65536; do
  timeout 45 $sg match -q --format json --device gpu --spasm off --gpu-dfs-frontier $f --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph >$r/g1-$f.jsonl 2>$r/g1-$f.err
  snap
done
