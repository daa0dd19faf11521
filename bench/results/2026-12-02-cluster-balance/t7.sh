#!/bin/bash
# Device call T7 (issue 42), the H200 host's 16 cores: the copy of the held lists, base
# (2ab9f82: each worker sorted its edges, the first worker merged the runs pairwise) against new
# (66bc953 and the partition default after it: each list collected once, the builder sorting on
# every core). R-MAT triangles (2^18 vertices, 2^22 edges, seed 1) in 8 hash parts of the file's
# numbering and of the degree order, 4-cliques (2^16, 2^20) on the degree order; 1, 2 and 4
# processes of 4 threads; three rounds, the binaries alternated run by run.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin
cd $B && for f in *.xz; do xz -d -f $f; done; chmod +x subgraph*; cd ..
date -u; nproc
S=$B/subgraph-new
TIMEFORMAT='wall %R'
timeout 60 $S gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 -o /tmp/rmat18.sgb | tail -1
timeout 60 $S gen graph --model rmat --vertices 65536 --edges 1048576 --seed 1 -o /tmp/rmat16.sgb | tail -1
for o in file degree; do $S partition /tmp/rmat18.sgb --parts 8 --vertex-order $o --output /tmp/p-rmat18-$o | tail -1; done
$S partition /tmp/rmat16.sgb --parts 8 --output /tmp/p-rmat16-auto | tail -1
printf 't 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 0 2\ne 1 2\n' > /tmp/triangle.graph
printf 't 4 6\nv 0 0 3\nv 1 0 3\nv 2 0 3\nv 3 0 3\ne 0 1\ne 0 2\ne 0 3\ne 1 2\ne 1 3\ne 2 3\n' > /tmp/clique4.graph
row() { python3 -c 'import sys,json
try:
    lines=sys.stdin.read().strip().splitlines(); d=json.loads([l for l in lines if l.startswith("{")][-1]); wall=[l for l in lines if l.startswith("wall")][-1].split()[1]
    print(wall, d["embeddings"], d["complete"], round(d["elapsed_ms"],1), [round(b) for b in d.get("busy_ms",[0])], [round(b/2**20) for b in d.get("peak_rss_bytes",[])], d.get("search"), d.get("bytes_sent"))
except Exception as e: print("ERROR", e)'; }
for round in 1 2 3; do
  for gq in rmat18-file:triangle rmat18-degree:triangle rmat16-auto:clique4; do
    g=${gq%:*}; q=${gq#*:}
    [ $SECONDS -lt 400 ] || break 2
    for p in 1 2 4; do
      for b in base new; do
        echo "cluster-$b $g $q p$p $( { time timeout 60 $B/subgraph-$b match /tmp/p-$g/manifest.json /tmp/$q.graph --local-processes $p --threads 4 --format json -q; } 2>&1 | row) round$round"
      done
    done
  done
done
echo "end $SECONDS"; date -u
