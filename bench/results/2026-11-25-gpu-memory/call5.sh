#!/usr/bin/env bash
# Device call 5 (2026-11-25 night): call 4 again, bounded: the GPU engine tests of the memory cap
# and the tree counts; --gpu-memory over the yeast heavy set (queries of milliseconds; call 4's
# R-MAT queries all ran into their 20 s timeout, which says nothing); patterns from Python on
# the GPU against the CPU; the package against the CLI per device.
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
{ date; nproc; nvidia-smi -L; } > "$res/machine.txt" 2>&1
if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
  lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
  [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 200 $B/tests/engine device_memory tree_counts restricted > $res/test-engine.log 2>&1
echo "engine tests rc=$?" >> $res/tests.txt
timeout 150 python3 - "$res" "$B" > $res/mem.txt 2>&1 <<'PY'
import json, subprocess, sys, glob
res, B = sys.argv[1], sys.argv[2]
data = f'{B}/sets/yeast/yeast.graph'
qs = sorted(glob.glob(f'{B}/heavy-queries/yeast/*.graph'))
def run(extra):
    o = subprocess.run([f'{B}/subgraph', 'match', '--device', 'gpu', '--timeout', '5', '--format', 'json', '-q'] + extra + [data] + qs, capture_output=True, text=True)
    return [json.loads(l) for l in o.stdout.splitlines() if l.startswith('{')], o.stderr
base, _ = run([])
held = min(b['space_bytes'] for b in base)
print('queries', len(base), 'held (graph, about)', held, 'peak max', max(b['peak_device_bytes'] for b in base))
for k in (2, 4, 8):
    cap = held + (max(b['peak_device_bytes'] for b in base) - held) // k
    got, err = run(['--gpu-memory', str(cap)])
    same = sum(g['embeddings'] == b['embeddings'] and g['complete'] == b['complete'] for g, b in zip(got, base))
    on_gpu = sum(g['device'] == 'gpu' for g in got)
    within = all(g.get('peak_device_bytes', 0) <= cap for g in got if g['device'] == 'gpu')
    t_base, t_cap = sum(b['elapsed_ms'] for b in base), sum(g['elapsed_ms'] for g in got)
    print(f'1/{k}: cap {cap}: {same} of {len(base)} counts equal, {on_gpu} on the GPU, peaks within the cap: {within}, elapsed sum {t_cap:.1f} ms (uncapped {t_base:.1f})')
    notes = [l for l in err.splitlines() if 'gpu-memory' in l]
    print('  notes:', len(notes), notes[:1])
PY
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $B/wheel/*.whl > $res/pip.txt 2>&1
export PYTHONPATH=/tmp/site
timeout 60 python3 - > $res/py-patterns.txt 2>&1 <<'PY'
import subgraph
d = subgraph.Graph.from_file(".device-bin/data/hprd/HPRD.graph")
pats = ["MATCH (a:1)--(b)--(c:2) RETURN count(*)", "MATCH (a:1)--(b)--(c:2), (b)--(d) RETURN DISTINCT b",
        "MATCH (a:1)--(b:1)--(c:1)--(a) RETURN a, b, c", "MATCH (a:1)--(b)--(c:1) RETURN DISTINCT a, c LIMIT 50"]
for p in pats:
    g, c = subgraph.count(d, p, device="gpu"), subgraph.count(d, p, device="cpu")
    rg, rc = subgraph.match(d, p, device="gpu"), subgraph.match(d, p, device="cpu")
    # Under LIMIT with DISTINCT, which rows (and how many matches were seen) may differ.
    if "LIMIT" in p:
        same = g.rows == c.rows == len(rg) == len(rc)
    else:
        same = (g.embeddings, g.rows) == (c.embeddings, c.rows) and sorted(map(tuple, rg.tolist())) == sorted(map(tuple, rc.tolist()))
    print(("OK" if same else "MISMATCH"), p, g.embeddings, g.rows, g.device, g.order, c.embeddings, c.rows, c.device, len(rg), len(rc))
n = subgraph.Graph.from_file("tests/data/named/edges.txt", directed=True, ids="names", vertex_labels="tests/data/named/labels.txt", vertex_props="tests/data/named/props.csv")
p = 'MATCH (a:Person)-[:knows]->(b:Person) WHERE b.born < 1920 RETURN a, b'
rg, rc = subgraph.match(n, p, device="gpu"), subgraph.match(n, p, device="cpu")
print(("OK" if sorted(map(tuple, rg.tolist())) == sorted(map(tuple, rc.tolist())) else "MISMATCH"), p, rg.tolist())
PY
timeout 150 python3 bench/python-devices.py $B/data/hprd/HPRD.graph $B/data/hprd/expected_output.res $B/data/hprd/queries/*.graph \
  --cli $B/subgraph --devices gpu cpu --runs 3 --rows 10 --out $res/python-devices.csv > $res/python-devices.md 2>&1
cd $OUT && tar czf results.tgz res && cd - > /dev/null
cat $res/tests.txt; grep "test result\|FAILED" $res/test-engine.log; cat $res/mem.txt; cat $res/py-patterns.txt; tail -4 $res/python-devices.md
