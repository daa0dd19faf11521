#!/usr/bin/env bash
# Device call 1: where G3's small queries spend their time, by driver call (.device-bin/subgraph is a build of
# 5e24586 with timing lines on stderr: trace.patch here), and whether
# `--device auto`'s CPU path is slower than `--device cpu`'s in the same code (hprd dense_16,
# yeast dense_4 and hprd dense_8 under the 10^5 limit, alternated three times).
set -u
O=$OUT; R=/tmp/r1; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
t=.device-bin/subgraph
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/device.txt 2>&1
S=.device-bin/sets
for k in 1 2 3; do
  for c in hprd:dense_16 yeast:dense_4 hprd:dense_8; do
    g=${c%%:*}; cl=${c#*:}
    qs=$(ls $S/$g/queries/query_${cl}_*.graph | sort -V | head -n 20)
    for dev in cpu auto; do
      timeout 60 $t match -q --format json --device $dev --timeout 3 --limit 100000 $S/$g/$g.graph $qs > $R/auto-$g-$cl-$dev-$k.jsonl 2>/dev/null
    done
    MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=17179869184 timeout 60 $t match -q --format json --device auto --timeout 3 --limit 100000 $S/$g/$g.graph $qs > $R/auto-$g-$cl-automalloc-$k.jsonl 2>/dev/null
  done
done
tar czf $O/call1.tgz -C $R .
OUT=$R/gen timeout 300 bench/gpu-bench.sh g3-graph > $R/gen.txt 2>&1
qs=$(ls /tmp/G3_q/*.graph | sort -V)
for k in 1 2; do
  timeout 60 $t match -q --format json --device gpu --timeout 10 /tmp/G3.sgb $qs > $R/g3-$k.jsonl 2> $R/g3-$k.err
done
tar czf $O/call1.tgz -C $R .
