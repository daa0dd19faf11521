#!/bin/bash
# Device call W1: does renumbering the data graph by ascending degree (hubs last) help the GPU
# matcher and the host's 16 cores as it helps the 2-core VM? R-MAT triangles and 4-cliques,
# each graph in its generated numbering and renumbered, `--unique` counts; GPU (the defaults)
# and CPU (16 threads), each run bounded by timeout.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
S=.device-bin/subgraph; D=/tmp/w1; mkdir -p $D
export SUBGRAPH_REQUIRE_GPU=1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
printf 't 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 0 2\ne 1 2\n' > $D/triangle.graph
printf 't 4 6\nv 0 0 3\nv 1 0 3\nv 2 0 3\nv 3 0 3\ne 0 1\ne 0 2\ne 0 3\ne 1 2\ne 1 3\ne 2 3\n' > $D/k4.graph
$S gen graph --model rmat --vertices 65536 --edges 1048576 --seed 1 --output $D/rmat16.graph
$S gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 --output $D/rmat18.graph
for g in rmat16 rmat18; do python3 - $D/$g.graph $D/${g}deg.graph <<'PY'
import sys
lines = open(sys.argv[1]).read().split('\n')
n = int(lines[0].split()[1])
deg, edges = [0] * n, []
for l in lines[1:]:
    if l.startswith('e'):
        u, v = map(int, l.split()[1:3]); edges.append((u, v)); deg[u] += 1; deg[v] += 1
order = sorted(range(n), key=lambda x: (deg[x], x))
new = [0] * n
for i, x in enumerate(order): new[x] = i
out = [f't {n} {len(edges)}'] + [f'v {i} 0 {deg[order[i]]}' for i in range(n)] + [f'e {new[u]} {new[v]}' for u, v in edges]
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
PY
done
echo "data $SECONDS"
run() { # graph query device
  local a=(--device $3); [ $3 = cpu ] && a+=(--threads 16)
  local r; r=$(timeout 90 $S match $D/$1.graph $D/$2.graph --unique "${a[@]}" --timeout 60 --format json -q 2>/dev/null)
  echo "$1 $2 $3 rc $? $(echo "$r" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print("elapsed_ms %.1f enumerate_ms %s unique %s complete %s order %s" % (r["elapsed_ms"], r.get("enumerate_ms"), r.get("unique"), r.get("complete"), r.get("order")))' 2>/dev/null)"
}
for rep in 1 2; do for q in triangle k4; do for g in rmat16 rmat16deg rmat18 rmat18deg; do for dev in gpu cpu; do
  [ $q = k4 ] && [ $dev = cpu ] && [ ${g#rmat18} != $g ] && continue
  run $g $q $dev; done; done; done; done
date -u; echo "elapsed $SECONDS"
