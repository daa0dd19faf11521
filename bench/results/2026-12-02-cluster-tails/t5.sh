#!/bin/bash
# Device call T5 (issue 42): which device and path made T4's one-host times. The same R-MAT
# graphs and patterns, one host, 4 threads: --device auto (T4's), --device cpu, and
# --device cpu --spasm off; the record's device, spasm_ms and elapsed_ms.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin
cd $B && for f in *.xz; do xz -d -f $f; done; chmod +x subgraph*; cd ..
S=$B/subgraph-lone
timeout 60 $S gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 -o /tmp/rmat18.sgb | tail -1
timeout 60 $S gen graph --model rmat --vertices 65536 --edges 1048576 --seed 1 -o /tmp/rmat16.sgb | tail -1
printf 't 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 0 2\ne 1 2\n' > /tmp/triangle.graph
printf 't 4 6\nv 0 0 3\nv 1 0 3\nv 2 0 3\nv 3 0 3\ne 0 1\ne 0 2\ne 0 3\ne 1 2\ne 1 3\ne 2 3\n' > /tmp/clique4.graph
row() { python3 -c 'import sys,json
try:
    d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(d["embeddings"], d["complete"], round(d["elapsed_ms"],1), d.get("device"), round(d.get("spasm_ms",0),1), round(d.get("enumerate_ms",0),1))
except Exception as e: print("ERROR", e)'; }
for gq in rmat18:triangle rmat16:clique4; do
  g=${gq%:*}; q=${gq#*:}
  for args in "--device auto" "--device cpu" "--device cpu --spasm off"; do
    [ $SECONDS -lt 200 ] || break 2
    echo "one-host $g $q [$args] $(timeout 60 $S match /tmp/$g.sgb /tmp/$q.graph --threads 4 $args --format json -q 2>&1 | row)"
  done
done
echo "end $SECONDS"
