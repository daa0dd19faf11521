#!/usr/bin/env bash
# Device call 10 of 2026-11-26-gpsm: after the review's mend of DeviceGraph::ensure (7db6e76),
# the tests that upload PCSR and CSR and build A, and G3 once under `auto`.
set -uo pipefail
B=.device-bin
r=/tmp/r10; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
( time timeout 200 $B/tests/engine device_refinement_equals_host_edge_consistency limit_chunks_count_large_tables_exactly depth_first_counts ) > $r/engine.txt 2>&1
grep -E "^test |test result|panicked" $r/engine.txt
OUT=$r HEAVY_VARIANTS="gpu" HEAVY_TIMEOUT=8 timeout 90 bench/gpu-bench.sh g3-variants
python3 -c "
import json
for l in open('$r/g3h-gpu.jsonl'):
    d=json.loads(l); print(d['query'].split('/')[-1], d['embeddings'], d['complete'], d.get('gpu_structure'))
"
cd /tmp && tar czf $OUT/call10.tgz r10
