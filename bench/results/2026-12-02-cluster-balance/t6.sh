#!/bin/bash
# Device call T6 (issue 42), the H200 host's 16 cores: the held search's dealing, base
# (fd73969, every prefix of one level) against new (heavy prefixes split), at 1, 2 and 4
# processes of 4 threads. R-MAT triangles (2^18 vertices, 2^22 edges) and 4-cliques (2^16,
# 2^20), seed 1, in 8 hash parts of the file's numbering and of the degree order; two rounds,
# the binaries alternated run by run; one host's CPU engine (--device cpu) on 4 and 16 threads
# beside them. Wall clock (loading and process start included), the report's elapsed_ms, each
# process's busy_ms (its workers' search time summed), peak RSS and bytes sent.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin
cd $B && for f in *.xz; do xz -d -f $f; done; chmod +x subgraph*; cd ..
date -u; nproc
S=$B/subgraph-new
TIMEFORMAT='wall %R'
timeout 60 $S gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 -o /tmp/rmat18.sgb | tail -1
timeout 60 $S gen graph --model rmat --vertices 65536 --edges 1048576 --seed 1 -o /tmp/rmat16.sgb | tail -1
for g in rmat18 rmat16; do
  for o in file degree; do $S partition /tmp/$g.sgb --parts 8 --vertex-order $o --output /tmp/p-$g-$o | tail -1; done
done
printf 't 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 0 2\ne 1 2\n' > /tmp/triangle.graph
printf 't 4 6\nv 0 0 3\nv 1 0 3\nv 2 0 3\nv 3 0 3\ne 0 1\ne 0 2\ne 0 3\ne 1 2\ne 1 3\ne 2 3\n' > /tmp/clique4.graph
row() { python3 -c 'import sys,json
try:
    lines=sys.stdin.read().strip().splitlines(); d=json.loads([l for l in lines if l.startswith("{")][-1]); wall=[l for l in lines if l.startswith("wall")][-1].split()[1]
    print(wall, d["embeddings"], d["complete"], round(d["elapsed_ms"],1), [round(b) for b in d.get("busy_ms",[0])], [round(b/2**20) for b in d.get("peak_rss_bytes",[])], d.get("search"), d.get("bytes_sent"))
except Exception as e: print("ERROR", e)'; }
for round in 1 2; do
  for gq in rmat18:triangle rmat16:clique4; do
    g=${gq%:*}; q=${gq#*:}
    [ $SECONDS -lt 480 ] || break 2
    for t in 4 16; do
      echo "one-host-cpu $g $q t$t $( { time timeout 60 $S match /tmp/$g.sgb /tmp/$q.graph --device cpu --threads $t --format json -q; } 2>&1 | row) round$round"
    done
    for o in file degree; do
      for p in 1 2 4; do
        for b in base new; do
          echo "cluster-$b $g-$o $q p$p $( { time timeout 90 $B/subgraph-$b match /tmp/p-$g-$o/manifest.json /tmp/$q.graph --local-processes $p --threads 4 --format json -q; } 2>&1 | row) round$round"
        done
      done
    done
  done
done
echo "end $SECONDS"; date -u
