#!/usr/bin/env bash
# Device call 4 (2026-11-25 night): the GPU test executables (device_memory_caps_keep_queries_exact
# among them); --gpu-memory on an R-MAT graph (counts and peaks at the graph plus 1/2, 1/4, 1/8 of
# what the uncapped queries held beyond it); patterns from Python on the GPU against the CPU
# (graph, tree and property patterns); the package against the CLI per device (python-devices).
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
{ date; nproc; nvidia-smi -L; } > "$res/machine.txt" 2>&1
if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
  lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
  [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
for exe in $B/tests/*; do
  SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 300 "$exe" > "$res/test-$(basename $exe).log" 2>&1
  echo "test executable $(basename "$exe"): rc=$?" >> "$res/tests.txt"
done
$B/subgraph gen graph --model rmat --vertices 1048576 --edges 16777216 --vertex-labels 4 --label-dist uniform --seed 3 \
  --output /tmp/m.sgb > $res/gen.txt 2>&1
$B/subgraph gen queries /tmp/m.sgb --size 6 --count 3 --kind sparse --seed 4 --output /tmp/mq >> $res/gen.txt 2>&1
$B/subgraph gen queries /tmp/m.sgb --size 8 --count 3 --kind dense --seed 4 --output /tmp/mq8 >> $res/gen.txt 2>&1
Q="/tmp/mq/*.graph /tmp/mq8/*.graph"
timeout 120 $B/subgraph match --device gpu --timeout 20 --format json -q /tmp/m.sgb $Q > $res/mem-auto.jsonl 2> $res/mem-auto.err
python3 - "$res" "$B/subgraph" <<'PY' > $res/mem.txt 2>&1
import json, subprocess, sys, glob
res, sg = sys.argv[1], sys.argv[2]
qs = sorted(glob.glob('/tmp/mq/*.graph')) + sorted(glob.glob('/tmp/mq8/*.graph'))
base = [json.loads(l) for l in open(f'{res}/mem-auto.jsonl')]
# The resident graph, about: the fewest bytes any query held once its levels were uploaded
# (space_bytes on the GPU counts the data graph too).
held = min(b['space_bytes'] for b in base)
print('held (graph, about)', held, 'peaks', [b['peak_device_bytes'] for b in base])
for k in (2, 4, 8):
    for q, b in zip(qs, base):
        cap = held + max(b['peak_device_bytes'] - held, 0) // k
        o = subprocess.run([sg, 'match', '--device', 'gpu', '--timeout', '20', '--format', 'json', '-q', '--gpu-memory', str(cap), '/tmp/m.sgb', q], capture_output=True, text=True)
        r = json.loads(o.stdout) if o.stdout.strip() else {}
        print(f"1/{k} {q.split('/')[-1]}: cap {cap} peak {r.get('peak_device_bytes')} device {r.get('device')} count {r.get('embeddings')} vs {b['embeddings']} complete {r.get('complete')} ms {r.get('elapsed_ms')} vs {b['elapsed_ms']} | {o.stderr.strip()[:200]}")
PY
cd $OUT && tar czf results.tgz res && cd - > /dev/null
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $B/wheel/*.whl > $res/pip.txt 2>&1
export PYTHONPATH=/tmp/site
timeout 120 python3 - > $res/py-patterns.txt 2>&1 <<'PY'
import subgraph
d = subgraph.Graph.from_file(".device-bin/data/hprd/HPRD.graph")
pats = ["MATCH (a:1)--(b)--(c:2) RETURN count(*)", "MATCH (a:1)--(b)--(c:2), (b)--(d) RETURN DISTINCT b",
        "MATCH (a:1)--(b:1)--(c:1)--(a) RETURN a, b, c", "MATCH (a:1)--(b)--(c:1) RETURN DISTINCT a, c LIMIT 50"]
for p in pats:
    g, c = subgraph.count(d, p, device="gpu"), subgraph.count(d, p, device="cpu")
    rg, rc = subgraph.match(d, p, device="gpu"), subgraph.match(d, p, device="cpu")
    same = (g.embeddings, g.rows) == (c.embeddings, c.rows) and (sorted(map(tuple, rg.tolist())) == sorted(map(tuple, rc.tolist())) or "LIMIT" in p)
    print(("OK" if same else "MISMATCH"), p, g.embeddings, g.rows, g.device, g.order, c.embeddings, c.rows, c.device, len(rg), len(rc))
n = subgraph.Graph.from_file("tests/data/named/edges.txt", directed=True, ids="names", vertex_labels="tests/data/named/labels.txt", vertex_props="tests/data/named/props.csv")
p = 'MATCH (a:Person)-[:knows]->(b:Person) WHERE b.born < 1920 RETURN a, b'
rg, rc = subgraph.match(n, p, device="gpu"), subgraph.match(n, p, device="cpu")
print(("OK" if sorted(map(tuple, rg.tolist())) == sorted(map(tuple, rc.tolist())) else "MISMATCH"), p, rg.tolist())
PY
timeout 200 python3 bench/python-devices.py $B/data/hprd/HPRD.graph $B/data/hprd/expected_output.res $B/data/hprd/queries/*.graph \
  --cli $B/subgraph --devices gpu cpu --runs 5 --rows 10 --out $res/python-devices.csv > $res/python-devices.md 2>&1
cd $OUT && tar czf results.tgz res && cd - > /dev/null
cat $res/tests.txt; cat $res/mem.txt | cut -c1-220; cat $res/py-patterns.txt; tail -4 $res/python-devices.md
