#!/usr/bin/env bash
# Device call 9 of 2026-11-26-gpsm: one list_owner (slices.cu) serves the refinement, GpSM and
# FSIG's A, whose sources now compile after pcsr.cu and slices.cu: the tests that run those
# kernels, then G3 once (A under `auto`), its counts against call 7's.
set -uo pipefail
B=.device-bin
r=/tmp/r9; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
( time timeout 240 $B/tests/engine gpsm_equals_the_cpu device_refinement_equals_host_edge_consistency restricted_queries_equal_the_cpu ) > $r/engine.txt 2>&1
grep -E "^test |test result|panicked" $r/engine.txt
timeout 60 $B/tests/nvrtc 2>&1 | grep "test result"
OUT=$r HEAVY_VARIANTS="gpu" HEAVY_TIMEOUT=8 timeout 90 bench/gpu-bench.sh g3-variants
python3 -c "
import json
for l in open('$r/g3h-gpu.jsonl'):
    d=json.loads(l); print(d['query'].split('/')[-1], d['embeddings'], d['complete'], d.get('gpu_structure'), round(d['elapsed_ms'],2))
"
cd /tmp && tar czf $OUT/call9.tgz r9
