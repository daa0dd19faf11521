#!/bin/bash
# Device call T8 (issue 42), the H200 host's 16 cores: the session's cluster changes on the
# labelled heavy set, base (9398d4d, the session's start) against new (3db11a2: heavy
# prefixes split, each held list collected once, the candidates sent once a process). Every
# heavy query (bench/queries/heavy) in 8 hash parts (auto: the file's numbering on these
# labelled graphs) at 2 processes of 4 threads, the binaries alternated query by query; then
# yeast's heaviest at 1, 2 and 4 processes.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin
cd $B && for f in *.xz; do xz -d -f $f; done; chmod +x subgraph*; cd ..
date -u; nproc
S=$B/subgraph-new
$S gen graph --model rmat --vertices 16384 --edges 262144 --vertex-labels 32 --label-dist uniform --seed 5 --output /tmp/rmat16k.graph | tail -1
declare -A DATA=([yeast]=tests/data/yeast/yeast.graph [hprd]=tests/data/hprd/HPRD.graph [wordnet]=$B/wordnet.graph [rmat16k]=/tmp/rmat16k.graph)
for set in yeast hprd wordnet rmat16k; do $S partition ${DATA[$set]} --parts 8 --output /tmp/p-$set | tail -1; done
row() { python3 -c 'import sys,json
try:
    d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(d["embeddings"], d["complete"], round(d["elapsed_ms"],1), round(sum(d.get("busy_ms",[0])),1), d["tail"], d.get("search"), d.get("bytes_sent"), max(d.get("peak_rss_bytes",[0]))>>20)
except Exception as e: print("ERROR", e)'; }
for set in yeast hprd wordnet rmat16k; do
  for q in bench/queries/heavy/$set/*.graph; do
    [ $SECONDS -lt 330 ] || break 2
    n=$(basename $q .graph)
    for b in base new; do
      echo "cluster-$b $set $n 2 $(timeout 30 $B/subgraph-$b match /tmp/p-$set/manifest.json $q --local-processes 2 --threads 4 --timeout 10 --format json -q 2>&1 | row)"
    done
  done
done
echo "sweep done $SECONDS"
for q in query_sparse_10_3 query_dense_10_5 query_dense_12_6 query_sparse_12_3 query_sparse_10_6; do
  for p in 1 2 4; do
    for b in base new; do
      [ $SECONDS -lt 420 ] || break 3
      echo "scale-$b yeast $q $p $(timeout 30 $B/subgraph-$b match /tmp/p-yeast/manifest.json bench/queries/heavy/yeast/$q.graph --local-processes $p --threads 4 --timeout 20 --format json -q 2>&1 | row)"
    done
  done
done
echo "end $SECONDS"; date -u
