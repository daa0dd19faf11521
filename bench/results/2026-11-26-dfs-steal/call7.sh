# Device call 7 (occupancy of the depth-first kernels: dfs.cu's D_MIN_BLOCKS, the blocks of 256
# threads each kernel is compiled to fit on an SM, at 4 (subgraph, the commit's value) and in
# variant binaries at 5, 6, 7 and 8 (subgraph-lbN, built with only that #define changed)): G3
# three rounds each, G1's dense queries by enumeration at the default frontier and at 2^16.
r=/tmp/r7; mkdir -p $r
snap() { tar czf "$OUT/call7.tgz" -C /tmp r7; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
cp .device-bin/subgraph .device-bin/subgraph-lb4
OUT=$r timeout 120 bench/gpu-bench.sh g3-graph; snap
qs3=$(ls /tmp/G3_q/*.graph | sort -V)
for round in 1 2 3; do
  for n in 4 5 6 7 8; do
    # shellcheck disable=SC2086
    timeout 60 .device-bin/subgraph-lb$n match -q --format json --device gpu --timeout 15 /tmp/G3.sgb $qs3 >$r/g3-lb$n-$round.jsonl 2>$r/g3-lb$n-$round.err
  done
done
snap
OUT=$r timeout 150 bench/gpu-bench.sh g1-graph; snap
for n in 4 5 6 7 8; do
  for f in 268435456 65536; do
    timeout 45 .device-bin/subgraph-lb$n match -q --format json --device gpu --spasm off --gpu-dfs-frontier $f --timeout 12 /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph /tmp/G1_q/dense_8_5.graph /tmp/G1_q/dense_8_4.graph >$r/g1-lb$n-$f.jsonl 2>$r/g1-lb$n-$f.err
    snap
  done
done
