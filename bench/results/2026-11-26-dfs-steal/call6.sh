# Device call 6 (both kernels compiled to fit four blocks an SM, __launch_bounds__; a variant
# binary at six, subgraph-lb6): ptxas resource usage now, the DFS tests, G3 on, off, lb6 and
# d62b609, G1 dense queries at frontiers 2^16, 2^20 and the default.
r=/tmp/r6; mkdir -p $r
snap() { tar czf "$OUT/call6.tgz" -C /tmp r6; }
sg=.device-bin/subgraph
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
for v in new; do
  PATH=$PATH:/usr/local/cuda/bin timeout 120 ptxas -arch=sm_90 -v .device-bin/ptx/dfs-$v.ptx -o /tmp/dfs-$v.cubin >$r/ptxas-$v.txt 2>&1
done
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 240 .device-bin/tests/engine --nocapture stolen_partial depth_first_counts >$r/test-dfs.log 2>&1
echo "tests rc=$?" >> $r/test-dfs.log; snap
OUT=$r timeout 120 bench/gpu-bench.sh g3-graph; snap
qs3=$(ls /tmp/G3_q/*.graph | sort -V)
for round in 1 2 3; do
  for v in on off lb6 old; do
    if [ $v = old ]; then b=.device-bin/subgraph-d62b609; f=; elif [ $v = lb6 ]; then b=.device-bin/subgraph-lb6; f=; else b=$sg; f="--gpu-dfs-steal $v"; fi
    # shellcheck disable=SC2086
    timeout 60 $b match -q --format json --device gpu $f --timeout 15 /tmp/G3.sgb $qs3 >$r/g3-$v-$round.jsonl 2>$r/g3-$v-$round.err
  done
done
snap
OUT=$r timeout 150 bench/gpu-bench.sh g1-graph; snap
for fs in 65536-on 1048576-on 268435456-on 268435456-off; do
  f=${fs%-*}; s=${fs#*-}
  timeout 45 $sg match -q --format json --device gpu --spasm off --gpu-dfs-frontier $f --gpu-dfs-steal $s --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph >$r/g1-front$f-$s.jsonl 2>$r/g1-front$f-$s.err
  snap
done
timeout 30 .device-bin/subgraph-lb6 match -q --format json --device gpu --spasm off --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph >$r/g1-lb6.jsonl 2>$r/g1-lb6.err
timeout 30 .device-bin/subgraph-d62b609 match -q --format json --device gpu --spasm off --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph >$r/g1-old.jsonl 2>$r/g1-old.err
snap
