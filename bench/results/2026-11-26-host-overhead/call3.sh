#!/usr/bin/env bash
# Device call 3: the planner alone on G3 (plan_bench.rs here, built as an example of subgraph-gpu: the host
# filter's candidates, planner::choose for the GPU, first call and warm, minor faults per call),
# on the device host, to compare with the development VM; THP settings.
set -u
O=$OUT; R=/tmp/r3; mkdir -p $R
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag > $R/thp.txt 2>&1
lscpu > $R/lscpu.txt 2>&1
OUT=$R/gen timeout 300 bench/gpu-bench.sh g3-graph > $R/gen.txt 2>&1
qs=$(ls /tmp/G3_q/*.graph | sort -V)
ITERS=5 timeout 120 .device-bin/ex/plan_bench /tmp/G3.sgb $qs > $R/plan.txt 2>&1
ITERS=5 RAYON_NUM_THREADS=2 timeout 120 .device-bin/ex/plan_bench /tmp/G3.sgb $qs > $R/plan-t2.txt 2>&1
MALLOC_MMAP_THRESHOLD_=4294967296 ITERS=5 timeout 120 .device-bin/ex/plan_bench /tmp/G3.sgb $qs > $R/plan-malloc.txt 2>&1
tar czf $O/call3.tgz -C $R .
