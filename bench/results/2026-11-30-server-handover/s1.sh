#!/bin/bash
# Device call S1: the server's supervisor on a GPU (issue 43): the gpu_ tests (a real fault asks
# the link for a successor), server-gpu-check.py (a restart and a killed process handed over
# under --device gpu); then G1's 10 queries on the GPU, ABBA, cd2ad50 (before the spasm's
# limits, subgraph-prev) against this build (issue 45's check that the limits leave G1 alone).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=.device-bin
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export SUBGRAPH_PTX_CACHE=/tmp/ptx
SUBGRAPH_REQUIRE_GPU=1 timeout 240 $B/server-tests gpu_ --test-threads 1 --nocapture 2>&1 | grep -vE "^\s+[0-9]+:|^\s+at " | tail -40
echo "server tests rc ${PIPESTATUS[0]}"; date -u
timeout 300 python3 scripts/server-gpu-check.py $B/subgraph tests/data/hprd/HPRD.graph; echo "check rc $?"; date -u
(cd /tmp && python3 "$OLDPWD/$B/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 --alpha 1.0 --seed 11 \
    --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 > /dev/null 2>&1)
sha256sum /tmp/G1.graph | cut -c1-16
$B/subgraph convert /tmp/G1.graph /tmp/G1.sgb 2>/dev/null; date -u
g1=$(ls /tmp/G1_q/*.graph | sort -V)
for rep in 1 2; do
  order="subgraph-prev subgraph"; [ $rep = 2 ] && order="subgraph subgraph-prev"
  for b in $order; do
    timeout 150 $B/$b match -q --format json --device gpu --timeout 15 /tmp/G1.sgb $g1 > "$OUT/g1-$b-$rep.jsonl"
  done
done
date -u
python3 - "$OUT" <<'P'
import json, sys, glob, statistics, os
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(out + "/g1-*.jsonl")):
    b, rep = os.path.basename(f)[3:-6].rsplit("-", 1)
    for l in open(f):
        r = json.loads(l)
        q = os.path.basename(r["query"]).replace(".graph", "")
        rows.setdefault(q, {}).setdefault(b, []).append((r["elapsed_ms"], r["embeddings"], r["complete"], r.get("spasm_ms", 0), r.get("counted_by", "")))
print("query before_ms after_ms after/before equal_counts after_spasm_ms")
for q, d in sorted(rows.items()):
    b, a = d.get("subgraph-prev", []), d.get("subgraph", [])
    if not a or not b: print(q, "missing", d); continue
    bm, am = statistics.median(x[0] for x in b), statistics.median(x[0] for x in a)
    eq = len({(x[1], x[2]) for x in b + a}) == 1
    print(q, round(bm, 2), round(am, 2), round(am / bm, 3), eq, max(x[3] for x in a))
P
tar czf "$OUT/g1.tgz" -C "$OUT" $(cd "$OUT" && ls g1-*.jsonl) && rm -f "$OUT"/g1-*.jsonl
