#!/usr/bin/env bash
# A one-off, kept as run (2026-11-30-bigjoin.md; bench/cluster/bigjoin.sh is the maintained
# script): BiGJoin (frankmcsherry/dataflow-join, timely 0.7, built outside our tree) against
# subgraph, counting triangles and 4-cliques of R-MAT graphs, at equal process and thread
# counts. Every run is timed by its wall clock (loading included) and its
# count is printed beside it: BiGJoin counts each clique once (edges oriented from the smaller
# id), which is our --unique.
#
#   bash bench/results/2026-11-30-bigjoin/run.sh SUBGRAPH EXAMPLES PARSE OUT   # from the repository root
#
# SUBGRAPH  our command-line tool (release build).
# EXAMPLES  dataflow-join's target/release/examples (triangles, four-cliques), built with
#           `cargo build --release --example triangles --example four-cliques` after its
#           Cargo.toml's graph_map dependency is pointed at a local copy of
#           frankmcsherry/graph-map (path = "../graph-map"; `fetch` brings both).
# PARSE     graph-map's target/release/parse (edge list to its .offsets/.targets files).
# OUT       results folder: log.txt (a line a run) and data/ (the graphs, made here).
#
# Graphs: `subgraph gen graph --model rmat` at 2^18 vertices and 2^22 edges, and at 2^16 and
# 2^20; the second also renumbered by ascending degree (hubs last), both systems reading the
# same numbering. Runs: one process of 1 and 2 threads (BiGJoin: -w 1, -w 2; ours: `match
# --threads`), and 1 or 2 processes of one thread over loopback (BiGJoin: -n 2 -p I -h hosts;
# ours: `match MANIFEST --local-processes P --threads 1` on a 2-part hash partition). Every
# run is bounded by `timeout` (TIMEOUT seconds, default 400).
set -uo pipefail
[ $# -eq 4 ] || { sed -n 2,24p "$0"; exit 2; }
S=$1 BJ=$2 PARSE=$3 OUT=$4 T=${TIMEOUT:-400}
D=$OUT/data; mkdir -p "$D"
exec > >(tee -a "$OUT/log.txt") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); code $(git rev-parse --short HEAD 2>/dev/null)"
printf 't 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 0 2\ne 1 2\n' > "$D/triangle.graph"
printf 't 4 6\nv 0 0 3\nv 1 0 3\nv 2 0 3\nv 3 0 3\ne 0 1\ne 0 2\ne 0 3\ne 1 2\ne 1 3\ne 2 3\n' > "$D/k4.graph"
printf '127.0.0.1:2101\n127.0.0.1:2102\n' > "$D/hosts.txt"

# Our graph NAME.graph as BiGJoin's NAME.offsets/.targets (each edge once, smaller id first)
# and as a 2-part partition.
convert() {
  awk '$1=="e"{u=$2;v=$3; if(u>v){t=u;u=v;v=t}; print u" "v}' "$D/$1.graph" > "$D/$1.txt"
  "$PARSE" "$D/$1.txt" "$D/$1" sort dedup > /dev/null
  "$S" partition "$D/$1.graph" --parts 2 --output "$D/$1-p2" > /dev/null
}
[ -s "$D/rmat18.graph" ] || "$S" gen graph --model rmat --vertices 262144 --edges 4194304 --seed 1 --output "$D/rmat18.graph"
[ -s "$D/rmat16.graph" ] || "$S" gen graph --model rmat --vertices 65536 --edges 1048576 --seed 1 --output "$D/rmat16.graph"
if [ ! -s "$D/rmat16deg.graph" ]; then
  python3 - "$D/rmat16.graph" "$D/rmat16deg.graph" <<'PY'
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
fi
for g in rmat18 rmat16 rmat16deg; do [ -s "$D/$g.targets" ] || convert $g; done

ours() {  # graph query mode(host|cluster) n
  local g=$1 q=$2 mode=$3 n=$4 data args
  if [ "$mode" = host ]; then data=$D/$g.graph; args=(--device cpu --threads "$n"); else data=$D/$g-p2/manifest.json; args=(--local-processes "$n" --threads 1); fi
  local s; s=$(date +%s%N)
  local r; r=$(timeout "$T" "$S" match "$data" "$D/$q.graph" --unique "${args[@]}" --format json -q 2>/dev/null)
  local rc=$? ms=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "ours $mode $n $g $q rc $rc wall_ms $ms count $(echo "$r" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read()).get("unique"))' 2>/dev/null)"
}
bigjoin() {  # graph query mode(workers|processes) n
  local g=$1 q=$2 mode=$3 n=$4 ex=triangles; [ "$q" = k4 ] && ex=four-cliques
  local s rc count; s=$(date +%s%N)
  if [ "$mode" = workers ]; then
    count=$(timeout "$T" "$BJ/$ex" "$D/$g" 100000 inspect -w "$n" 2>/dev/null | grep -o 'at this process: [0-9]*' | grep -o '[0-9]*$'); rc=$?
  else
    timeout "$T" "$BJ/$ex" "$D/$g" 100000 inspect -n 2 -p 1 -h "$D/hosts.txt" > "$D/bj-p1.txt" 2>&1 &
    local other=$!
    count=$(timeout "$T" "$BJ/$ex" "$D/$g" 100000 inspect -n 2 -p 0 -h "$D/hosts.txt" 2>/dev/null | grep -o 'at this process: [0-9]*' | grep -o '[0-9]*$'); rc=$?
    wait $other
    count=$(( count + $(grep -o 'at this process: [0-9]*' "$D/bj-p1.txt" | grep -o '[0-9]*$') ))
  fi
  echo "bigjoin $mode $n $g $q rc $rc wall_ms $(( ($(date +%s%N) - s) / 1000000 )) count $count"
}
for g in rmat18 rmat16; do
  for n in 1 2; do ours $g triangle host $n; bigjoin $g triangle workers $n; done
  ours $g triangle cluster 1; ours $g triangle cluster 2; bigjoin $g triangle processes 2
done
ours rmat16 k4 host 2; bigjoin rmat16 k4 workers 2; ours rmat16 k4 cluster 2; bigjoin rmat16 k4 processes 2
for q in triangle k4; do ours rmat16deg $q host 2; bigjoin rmat16deg $q workers 2; done
echo "== $(date -u +%FT%TZ) done"
