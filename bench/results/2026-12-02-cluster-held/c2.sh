#!/bin/bash
# Device call C2 (issues 42 and 44), one H200 and its host's 16 cores: the subgraph-gpu engine
# and device tests on the GPU, then `subgraph` (every link's slice cut above the symmetry bounds
# in the GPU's depth-first kernel, dfs.cu, and in the CPU engine) against `subgraph-base`
# (b184202), alternated: unlabelled R-MAT triangles, 4- and 5-cliques on the GPU and on 16
# threads, yeast's heavy queries on the GPU, while the call's time lasts.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin W=/tmp/w
cd $B && for f in *.xz; do xz -d -f $f; done; chmod +x *; cd ..
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in gpu-engine-test gpu-device-test; do
  echo "== $t"
  SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 300 $B/$t 2>&1 | grep -E "^test |test result|panicked"
  echo "$t rc=${PIPESTATUS[0]} $SECONDS"
done
mkdir -p $W
$B/subgraph gen graph --model rmat --vertices 65536 --edges 1048576 --seed 1 -o $W/rmat16.graph | tail -1
$B/subgraph gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 -o $W/rmat18.graph | tail -1
for g in rmat16 rmat18; do $B/subgraph convert $W/$g.graph $W/$g.sgb | tail -1; done
printf 't 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 0 2\ne 1 2\n' > $W/triangle.graph
python3 - $W <<'PY'
import sys, itertools
for k in (4, 5):
    e = list(itertools.combinations(range(k), 2))
    with open(f"{sys.argv[1]}/clique{k}.graph", "w") as f:
        f.write(f"t {k} {len(e)}\n" + "".join(f"v {i} 0 {k-1}\n" for i in range(k)) + "".join(f"e {a} {b}\n" for a, b in e))
PY
# One run, while the call has time: tag, binary, data, query, match's other arguments.
one() {
  [ $SECONDS -lt 560 ] || return 0
  local tag=$1 bin=$2 data=$3 q=$4; shift 4
  local line; line=$(timeout 30 $B/$bin match $data $q --format json -q --timeout 25 "$@" 2>&1 | tail -1)
  echo "$tag $bin $(basename $data) $(basename $q .graph) $(echo "$line" | python3 -c 'import sys,json
try:
    d=json.loads(sys.stdin.read()); print(d["embeddings"], d["complete"], round(d["elapsed_ms"],2), round(d["enumerate_ms"],2))
except Exception as e: print("ERROR", e)')" >> $OUT/bench.txt
}
for round in 1 2 3; do
  for bin in subgraph-base subgraph; do
    for g in rmat16 rmat18; do for q in triangle clique4 clique5; do one gpu $bin $W/$g.sgb $W/$q.graph --device gpu; done; done
    for q in clique4 clique5; do one cpu16 $bin $W/rmat16.sgb $W/$q.graph --device cpu --threads 16; done
  done
  echo "round $round $SECONDS"
done
for round in 1 2; do
  for bin in subgraph-base subgraph; do
    for q in bench/queries/heavy/yeast/*.graph; do one heavy $bin tests/data/yeast/yeast.graph $q --device gpu; done
  done
  echo "heavy round $round $SECONDS"
done
wc -l $OUT/bench.txt; date -u
