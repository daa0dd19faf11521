#!/usr/bin/env bash
# Call B (one H200): issue 38's move timed ABBA on the GPU. G3 (16 queries) and G1 (gMatch's 10
# queries) with the binary before the move (5c470d9, .device-bin/subgraph-before) and after it
# (5bfd1e5, .device-bin/subgraph) in the order before, after, after, before.
set -u
B=.device-bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd /tmp && python3 "$OLDPWD/$B/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 --alpha 0 --seed 13 \
    --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 sparse:12:4 > /dev/null 2>&1)
(cd /tmp && python3 "$OLDPWD/$B/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 --alpha 1.0 --seed 11 \
    --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 > /dev/null 2>&1)
sha256sum /tmp/G3.graph /tmp/G1.graph | cut -c1-16
$B/subgraph convert /tmp/G3.graph /tmp/G3.sgb 2>/dev/null; $B/subgraph convert /tmp/G1.graph /tmp/G1.sgb 2>/dev/null
g3=$(ls /tmp/G3_q/*.graph | sort -V); g1=$(ls /tmp/G1_q/*.graph | sort -V)
for rep in 1 2; do
  order="subgraph-before subgraph"; [ $rep = 2 ] && order="subgraph subgraph-before"
  for b in $order; do
    timeout 120 $B/$b match -q --format json --device gpu --timeout 15 /tmp/G3.sgb $g3 > "$OUT/g3-$b-$rep.jsonl"
    timeout 150 $B/$b match -q --format json --device gpu --timeout 15 /tmp/G1.sgb $g1 > "$OUT/g1-$b-$rep.jsonl"
  done
done
python3 - "$OUT" <<'P'
import json, sys, glob, statistics, os
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(out + "/g[13]-*.jsonl")):
    g, b, rep = os.path.basename(f)[:-6].split("-", 1)[0], *os.path.basename(f)[:-6].split("-", 1)[1].rsplit("-", 1)
    for l in open(f):
        r = json.loads(l)
        q = os.path.basename(r["query"]).replace(".graph", "")
        rows.setdefault((g, q), {}).setdefault(b, []).append((r["elapsed_ms"], r["embeddings"], r["complete"]))
print("graph query before_ms after_ms after/before equal_counts")
for (g, q), d in sorted(rows.items()):
    b, a = d.get("subgraph-before", []), d.get("subgraph", [])
    bm, am = statistics.median(x[0] for x in b), statistics.median(x[0] for x in a)
    eq = len({(x[1], x[2]) for x in b + a}) == 1
    print(g, q, round(bm, 2), round(am, 2), round(am / bm, 3), eq)
P
tar czf "$OUT/bench.tgz" -C "$OUT" $(cd "$OUT" && ls g[13]-*.jsonl) && rm -f "$OUT"/g[13]-*.jsonl
