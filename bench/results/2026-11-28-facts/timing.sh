#!/usr/bin/env bash
# Call D (one H200): issue 39 on single-label graphs, the commit before (5bfd1e5,
# .device-bin/subgraph-38) against the head (.device-bin/subgraph), ABBA: G3 (16 queries) and G1
# (gMatch's 10) on the GPU; HPRD's and yeast's query sets on the CPU (16 threads). Then issue 38's
# open question: G1 with its queries in reverse order, 5c470d9 (.device-bin/subgraph-before)
# against 5bfd1e5, ABBA.
set -u
B=.device-bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd /tmp && python3 "$OLDPWD/$B/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 --alpha 0 --seed 13 \
    --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 sparse:12:4 > /dev/null 2>&1)
(cd /tmp && python3 "$OLDPWD/$B/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 --alpha 1.0 --seed 11 \
    --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 > /dev/null 2>&1)
sha256sum /tmp/G3.graph /tmp/G1.graph | cut -c1-16
$B/subgraph-38 convert /tmp/G3.graph /tmp/G3.sgb 2>/dev/null; $B/subgraph-38 convert /tmp/G1.graph /tmp/G1.sgb 2>/dev/null
g3=$(ls /tmp/G3_q/*.graph | sort -V); g1=$(ls /tmp/G1_q/*.graph | sort -V); g1r=$(ls /tmp/G1_q/*.graph | sort -Vr)
D=$B/data
hprd=$(ls $D/hprd/queries/*.graph | sort -V); yeast=$(cut -d' ' -f1 $D/yeast/expected.txt | sed "s|^|$D/yeast/queries/|")
for rep in 1 2; do
  order="subgraph-38 subgraph"; [ $rep = 2 ] && order="subgraph subgraph-38"
  for b in $order; do
    timeout 120 $B/$b match -q --format json --device gpu --timeout 15 /tmp/G3.sgb $g3 > "$OUT/g3-$b-$rep.jsonl"
    timeout 150 $B/$b match -q --format json --device gpu --timeout 15 /tmp/G1.sgb $g1 > "$OUT/g1-$b-$rep.jsonl"
    timeout 100 $B/$b match -q --format json --device cpu --timeout 10 $D/hprd/HPRD.graph $hprd > "$OUT/hprd-$b-$rep.jsonl"
    timeout 100 $B/$b match -q --format json --device cpu --timeout 10 $D/yeast/yeast.graph $yeast > "$OUT/yeast-$b-$rep.jsonl"
  done
done
for rep in 1 2; do
  order="subgraph-before subgraph-38"; [ $rep = 2 ] && order="subgraph-38 subgraph-before"
  for b in $order; do
    timeout 150 $B/$b match -q --format json --device gpu --timeout 15 /tmp/G1.sgb $g1r > "$OUT/g1r-$b-$rep.jsonl"
  done
done
# The multigraph on the GPU itself: yeast's 4-vertex queries (which expand into queries over
# the label sets, where its 8- and 16-vertex ones run over the view on the CPU) on
# .device-bin/data/yeast-multi.el, CPU against GPU.
y4=$(ls $D/yeast/queries/query_*_4_*.graph 2>/dev/null | sort -V)
[ -n "$y4" ] || y4=$(cut -d' ' -f1 $D/yeast/expected.txt | grep '_4_' | sed "s|^|$D/yeast/queries/|")
timeout 60 $B/subgraph match -q --format json --device cpu --timeout 10 $D/yeast-multi.el $y4 > /tmp/ym-cpu.jsonl 2>/dev/null
timeout 60 $B/subgraph match -q --format json --device gpu --timeout 10 $D/yeast-multi.el $y4 > /tmp/ym-gpu.jsonl 2>/dev/null
python3 $B/compare-counts.py - /tmp/ym-cpu.jsonl /tmp/ym-gpu.jsonl yeast-multi-4 | tail -n 1
echo "reported on the GPU (one expansion each): $(grep -c '"device":"gpu"' /tmp/ym-gpu.jsonl) of $(wc -l < /tmp/ym-gpu.jsonl)"
python3 - "$OUT" <<'P'
import json, sys, glob, statistics, os
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(out + "/*.jsonl")):
    base = os.path.basename(f)[:-6]
    g, rest = base.split("-", 1)
    b, rep = rest.rsplit("-", 1)
    for l in open(f):
        r = json.loads(l)
        q = os.path.basename(r["query"]).replace(".graph", "")
        rows.setdefault((g, q), {}).setdefault(b, []).append((r["elapsed_ms"], r["embeddings"], r["complete"]))
print("graph query A_ms B_ms B/A equal_counts   (A, B: 38 vs head for g3 g1 hprd yeast; before vs 38 for g1r)")
sums = {}
for (g, q), d in sorted(rows.items()):
    a_name, b_name = ("subgraph-before", "subgraph-38") if g == "g1r" else ("subgraph-38", "subgraph")
    a, b = d.get(a_name, []), d.get(b_name, [])
    if not a or not b:
        continue
    am, bm = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
    eq = len({(x[1], x[2]) for x in a + b}) == 1
    s = sums.setdefault(g, [0, 0, 0, 0])
    s[0] += am; s[1] += bm; s[2] += 1; s[3] += (not eq)
    if g in ("g3", "g1", "g1r") or bm / max(am, 1e-9) > 1.1 and am > 5:
        print(g, q, round(am, 2), round(bm, 2), round(bm / max(am, 1e-9), 3), eq)
for g, (a, b, n, bad) in sums.items():
    print("TOTAL", g, n, "queries:", round(a, 1), round(b, 1), round(b / a, 3), "unequal:", bad)
P
tar czf "$OUT/bench.tgz" -C "$OUT" $(cd "$OUT" && ls *.jsonl) && rm -f "$OUT"/*.jsonl
