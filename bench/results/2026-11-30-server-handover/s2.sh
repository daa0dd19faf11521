#!/bin/bash
# Device call S2: G1's sparse_8_1, _4, _5 on the GPU, five rounds alternating cd2ad50 (prev)
# and this build (new), and new with --spasm off, to tell S1's 1.4-1.9x on _4 and _5 from noise.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin
date -u
if [ ! -f /tmp/G1.sgb ]; then
(cd /tmp && python3 "$OLDPWD/$B/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 --alpha 1.0 --seed 11 \
    --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 > /dev/null 2>&1)
$B/subgraph convert /tmp/G1.graph /tmp/G1.sgb 2>/dev/null
fi
q="/tmp/G1_q/sparse_8_1.graph /tmp/G1_q/sparse_8_4.graph /tmp/G1_q/sparse_8_5.graph"
for rep in 1 2 3 4 5; do
  for v in prev new new-nospasm; do
    b=subgraph; f=""; [ $v = prev ] && b=subgraph-prev; [ $v = new-nospasm ] && f="--spasm off"
    timeout 60 $B/$b match -q --format json --device gpu --timeout 15 $f /tmp/G1.sgb $q | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print('$v', $rep, r['query'].split('/')[-1], round(r['elapsed_ms'],1), round(r['enumerate_ms'],1), r['embeddings'])"
  done
done
date -u
