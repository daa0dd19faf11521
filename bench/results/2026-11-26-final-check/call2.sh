#!/usr/bin/env bash
# Device call 2 (one H200): where G3's 8-vertex queries spend their host time. A build of
# 309542d with timing lines on stderr (planner::choose and the GPU engine's plan_query; not
# committed) runs G3 as is, with glibc's mmap threshold raised (no fresh pages per large
# allocation), and on one thread.
set -u
O=$OUT; R=/tmp/r2; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
OUT=$R/gen HEAVY_VARIANTS=gpu HEAVY_TIMEOUT=10 timeout 120 bench/gpu-bench.sh g3-variants > $R/gen.txt 2>&1
qs=$(ls /tmp/G3_q/*.graph | sort -V)
t=.device-bin/trace/subgraph
for k in 1 2; do
  timeout 60 $t match -q --format json --device gpu --timeout 10 /tmp/G3.sgb $qs > $R/plain-$k.jsonl 2> $R/plain-$k.err
  MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=17179869184 \
    timeout 60 $t match -q --format json --device gpu --timeout 10 /tmp/G3.sgb $qs > $R/malloc-$k.jsonl 2> $R/malloc-$k.err
  timeout 60 $t match -q --format json --device gpu --threads 1 --timeout 10 /tmp/G3.sgb $qs > $R/t1-$k.jsonl 2> $R/t1-$k.err
done
lscpu > $R/lscpu.txt 2>&1
tar czf $O/call2.tgz -C $R .
