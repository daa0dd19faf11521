#!/bin/bash
# Device call S5: which --gpu-memory caps leave a partitioned walk graph's triangle count on the GPU.
set -u
B=$PWD/.device-bin
export SUBGRAPH_PTX_CACHE=/tmp/ptx
for n in 20000 200000; do
python3 - $n <<'P'
import sys
n=int(sys.argv[1]); x=0x9E3779B97F4A7C15
with open(f"/tmp/walk{n}.txt","w") as f:
    for a in range(n):
        for _ in range(10):
            x=(x*6364136223846793005+1442695040888963407)%(1<<64); b=(x>>33)%n
            if a!=b: f.write(f"{a} {b}\n")
P
done
Q='MATCH (a)--(b)--(c)--(a) RETURN count(*)'
for spec in "20000 5.0M 5.3M 5.6M 8M" "200000 45M 50M 55M 80M"; do
  set -- $spec; n=$1; shift
  for cap in "$@"; do
    echo "n=$n cap=$cap"
    timeout 60 $B/subgraph match --format json --device gpu --gpu-memory $cap --input-format edges /tmp/walk$n.txt --pattern "$Q" 2>&1 | python3 -c "
import sys,json
for l in sys.stdin:
    l=l.strip()
    if not l.startswith('{'): print('  ', l[:300]); continue
    r=json.loads(l); print('  ', {k:r.get(k) for k in ('device','embeddings','elapsed_ms','note','engine','partitioned','segments')})"
  done
done
