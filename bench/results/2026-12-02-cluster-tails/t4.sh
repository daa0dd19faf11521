#!/bin/bash
# Device call T4 (issue 42), the H200 host's 16 cores: scaling over processes on one host with
# the counted tails and a lone process copying nothing (fd73969). R-MAT triangles (2^18
# vertices, 2^22 edges) and 4-cliques (2^16, 2^20), as C1 made them, in 8 hash parts, at 1, 2
# and 4 processes of 4 threads, two rounds; beside one host on 4 and 16 threads. Wall clock
# (loading and process start included) and the report's elapsed_ms, busy_ms and peak RSS.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin
cd $B && for f in *.xz; do xz -d -f $f; done; chmod +x subgraph*; cd ..
date -u; nproc
S=$B/subgraph-lone
TIMEFORMAT='wall %R'
timeout 60 $S gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 -o /tmp/rmat18.sgb | tail -1
timeout 60 $S gen graph --model rmat --vertices 65536 --edges 1048576 --seed 1 -o /tmp/rmat16.sgb | tail -1
for g in rmat18 rmat16; do $S partition /tmp/$g.sgb --parts 8 --output /tmp/p-$g | tail -1; done
printf 't 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 0 2\ne 1 2\n' > /tmp/triangle.graph
printf 't 4 6\nv 0 0 3\nv 1 0 3\nv 2 0 3\nv 3 0 3\ne 0 1\ne 0 2\ne 0 3\ne 1 2\ne 1 3\ne 2 3\n' > /tmp/clique4.graph
row() { python3 -c 'import sys,json
try:
    lines=sys.stdin.read().strip().splitlines(); d=json.loads([l for l in lines if l.startswith("{")][-1]); wall=[l for l in lines if l.startswith("wall")][-1].split()[1]
    print(wall, d["embeddings"], d["complete"], round(d["elapsed_ms"],1), round(sum(d.get("busy_ms",[0])),1), [round(b/2**20) for b in d.get("peak_rss_bytes",[])], d.get("search"), d.get("bytes_sent"))
except Exception as e: print("ERROR", e)'; }
for round in 1 2; do
  for gq in rmat18:triangle rmat16:clique4; do
    g=${gq%:*}; q=${gq#*:}
    [ $SECONDS -lt 500 ] || break 2
    for t in 4 16; do
      echo "one-host $g $q t$t $( { time timeout 60 $S match /tmp/$g.sgb /tmp/$q.graph --threads $t --format json -q; } 2>&1 | row) round$round"
    done
    for p in 1 2 4; do
      echo "cluster $g $q p$p $( { time timeout 90 $S match /tmp/p-$g/manifest.json /tmp/$q.graph --local-processes $p --threads 4 --format json -q; } 2>&1 | row) round$round"
    done
  done
done
echo "end $SECONDS"; date -u
