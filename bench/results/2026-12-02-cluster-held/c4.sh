#!/bin/bash
# Device call C4 (issue 42), the H200 host's 16 cores: C3's cluster runs again with the prefixes
# dealt (held.rs's Deal: the roots, or their extensions where there are fewer than 64 a
# worker), base b184202 against new, alternated: yeast's sparse_10_3 and dense_10_5 in 8 hash
# parts at 1, 2 and 4 processes of 4 threads, beside the single-host engine on 4 threads.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin
cd $B && for f in *.xz; do xz -d -f $f; done; chmod +x *; cd ..
date -u
$B/subgraph partition tests/data/yeast/yeast.graph --parts 8 --output /tmp/yp | tail -1
row() { python3 -c 'import sys,json
try:
    d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(d["embeddings"], d["complete"], round(d["elapsed_ms"],1), d.get("busy_ms"), d.get("search"))
except Exception as e: print("ERROR", e)'; }
for round in 1 2; do
  for q in query_sparse_10_3 query_dense_10_5; do
    Q=bench/queries/heavy/yeast/$q.graph
    for bin in subgraph-base subgraph; do
      [ $SECONDS -lt 240 ] || break
      echo "one-host $bin $q 1 $(timeout 60 $B/$bin match tests/data/yeast/yeast.graph $Q --threads 4 --timeout 50 --format json -q 2>&1 | row)"
      for p in 1 2 4; do
        echo "cluster $bin $q $p $(timeout 60 $B/$bin match /tmp/yp/manifest.json $Q --local-processes $p --threads 4 --timeout 50 --format json -q 2>&1 | row)"
      done
    done
  done
  echo "round $round $SECONDS"
done
date -u
