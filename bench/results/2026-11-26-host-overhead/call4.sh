#!/usr/bin/env bash
# Device call 4: why planning takes 2-4x longer inside the GPU run than alone. plan_bench (plan_bench.rs
# here, built as an example of subgraph-gpu) plans G3's queries for the GPU alone, with a GPU engine open, and
# with each query run on the GPU just before; the CLI with 16, 4 and 1 threads.
set -u
O=$OUT; R=/tmp/r4; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
OUT=$R/gen timeout 300 bench/gpu-bench.sh g3-graph > $R/gen.txt 2>&1
qs=$(ls /tmp/G3_q/*.graph | sort -V)
for m in none open run; do
  GPU=$m ITERS=3 timeout 120 .device-bin/ex/plan_bench /tmp/G3.sgb $qs > $R/plan-$m.txt 2> $R/plan-$m.err
done
for th in 16 4 1; do
  timeout 60 .device-bin/subgraph match -q --format json --device gpu --threads $th --timeout 10 /tmp/G3.sgb $qs > $R/g3-t$th.jsonl 2> $R/g3-t$th.err
done
tar czf $O/call4.tgz -C $R .
