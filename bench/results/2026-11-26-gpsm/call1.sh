#!/usr/bin/env bash
# Device call 1 of 2026-11-26-gpsm: GpSM's tests on the GPU, then its counts on the oracles.
set -uo pipefail
B=.device-bin
r=/tmp/r1; mkdir -p $r
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > $r/gpu.txt
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
( time timeout 300 $B/tests/engine gpsm_equals_the_cpu --nocapture ) > $r/engine-gpsm.txt 2>&1
tail -5 $r/engine-gpsm.txt
( time timeout 120 $B/tests/subgraph_gpu ) > $r/lib.txt 2>&1; tail -3 $r/lib.txt
timeout 60 $B/tests/nvrtc > $r/nvrtc.txt 2>&1; tail -2 $r/nvrtc.txt
d=$B/data
for g in hprd yeast; do
  if [ $g = hprd ]; then data=$d/hprd/HPRD.graph; qs=$(ls $d/hprd/queries/*.graph | head -n 200);
  else data=$d/yeast/yeast.graph; qs=$(cut -d' ' -f1 $d/yeast/expected.txt | head -n 200 | sed "s|^|$d/yeast/queries/|"); fi
  for s in gsi gpsm; do
    /usr/bin/time -f "%e s %M KB" $B/subgraph match -q --format json --device gpu --gpu-strategy $s --timeout 20 $data $qs > $r/$g-$s.jsonl 2> $r/$g-$s.err
    tail -2 $r/$g-$s.err
  done
  python3 - $r/$g-gsi.jsonl $r/$g-gpsm.jsonl <<'PY'
import json,sys
a=[json.loads(l) for l in open(sys.argv[1])]; b=[json.loads(l) for l in open(sys.argv[2])]
def rep(x): return x.get('report',x)
same=sum(1 for x,y in zip(a,b) if rep(x)['embeddings']==rep(y)['embeddings'] and rep(y)['complete'])
print(sys.argv[2], len(a), len(b), 'equal+complete', same)
for x,y in zip(a,b):
    if rep(x)['embeddings']!=rep(y)['embeddings'] or not rep(y)['complete']:
        print(' diff', x.get('query'), rep(x)['embeddings'], rep(y)['embeddings'], rep(y)['complete']); 
PY
done
cd /tmp && tar czf $OUT/call1.tgz r1
