#!/bin/bash
# Device call X6 (2026-11-29, ninth session) on nvidia-h200-x2: a 10^9-edge graph served from
# one upload (issue 43): generated, served by `subgraph serve --device gpu`, three dense
# 8-vertex queries asked twice through HTTP, against `subgraph match` on the same file.
set -u
B=$PWD/.device-bin
exec > >(tee -a $OUT/log.txt) 2>&1
export SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; free -g | head -2
t0=$(date +%s)
timeout 210 $B/subgraph gen graph --model rmat --vertices 67108864 --edges 1000000000 --vertex-labels 256 --label-dist uniform --seed 7 --output /tmp/big.sgb > /dev/null 2>/tmp/gen.err; echo "gen rc $? $(( $(date +%s)-t0 )) s"; tail -2 /tmp/gen.err
ls -la /tmp/big.sgb
timeout 30 $B/subgraph gen queries /tmp/big.sgb --size 8 --count 3 --kind dense --seed 3 --output /tmp/bq > /dev/null 2>&1; echo "queries rc $?"; ls /tmp/bq
timeout 100 python3 - "$B/subgraph" <<'PY'
import json, re, subprocess, sys, time, glob, urllib.request
B = sys.argv[1]
qs = sorted(glob.glob('/tmp/bq/*.graph'))
t = time.time()
p = subprocess.Popen([B, "serve", "--listen", "127.0.0.1:0", "--graph", "big=/tmp/big.sgb", "--device", "gpu", "--query-timeout", "20"], stderr=subprocess.PIPE, text=True)
log = []
while True:
    line = p.stderr.readline()
    if not line:
        print("server did not start:", "".join(log)); sys.exit(1)
    log.append(line)
    m = re.search(r"listening on (http://\S+)", line)
    if m:
        base = m.group(1); break
print("server ready in %.1f s" % (time.time() - t)); print("".join(log[-4:]).strip())
def call(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read().decode())
g = call("/v1/graphs")["graphs"][0]
print("graph:", {k: g.get(k) for k in ("name", "vertices", "edges", "engine", "devices")})
for rnd in (1, 2):
    for q in qs:
        t1 = time.time()
        r = call("/v1/graphs/big/match", {"query": open(q).read(), "timeout": 10})
        wall = (time.time() - t1) * 1e3
        print("round %d %s: embeddings %s, elapsed_ms %.1f, round trip %.1f ms, device %s, stopped %s" % (rnd, q.split('/')[-1], r.get("embeddings"), r.get("elapsed_ms"), wall, r.get("device"), r.get("stopped")))
p.terminate(); p.wait(timeout=30)
PY
echo "== match, one process, the same queries"
t0=$(date +%s); timeout 100 $B/subgraph match -q --format json --device gpu --timeout 10 /tmp/big.sgb /tmp/bq/*.graph > /tmp/m.jsonl 2>/tmp/m.err; echo "match rc $? $(( $(date +%s)-t0 )) s"
python3 -c "
import json
for l in open('/tmp/m.jsonl'):
    r = json.loads(l)
    print(r.get('query', '').split('/')[-1], 'embeddings', r.get('embeddings'), 'elapsed_ms %.1f' % r.get('elapsed_ms', -1), 'load_ms', r.get('load_ms'), 'stopped', r.get('stopped'))
"
tail -2 /tmp/m.err
date -u
