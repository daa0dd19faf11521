#!/bin/bash
# Device call E8: the ANN GPU tests on the final code (page-locked transfers through
# PinnedBuffer's order_after/copied); subgraph serve on the GPU: HPRD's 200 oracle queries
# through the server (one client, then 64 for 30 s), counts checked, against the CLI.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
S=$PWD/.device-bin/subgraph
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "test result|panicked|FAILED" | cut -c1-300
date -u
for dev in gpu cpu; do
  $S serve --graph hprd=tests/data/hprd/HPRD.graph --device $dev --listen 127.0.0.1:7878 --max-concurrent 16 --max-queue 256 > /tmp/serve-$dev.log 2>&1 &
  pid=$!
  for i in $(seq 100); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:7878/v1/health', timeout=1)" 2>/dev/null && break; sleep 0.2; done
  python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:7878/v1/graphs', timeout=5).read().decode())"
  timeout 120 python3 .device-bin/serve_load.py http://127.0.0.1:7878 tests/data/hprd 64 30 > $OUT/load-$dev.json; echo "load $dev rc $?"; cat $OUT/load-$dev.json; echo
  kill -TERM $pid; wait $pid; echo "serve $dev exit $?"
  tail -3 /tmp/serve-$dev.log | cut -c1-200
done
date -u
# The CLI on the same queries, one process, every query (elapsed_ms is the engine's).
timeout 120 $S match tests/data/hprd/HPRD.graph tests/data/hprd/queries/*.graph --device gpu --format json > /tmp/cli-gpu.jsonl 2>/dev/null; echo "cli gpu rc $?"
python3 -c "
import json,statistics
r=[json.loads(l) for l in open('/tmp/cli-gpu.jsonl') if l.startswith('{')]
print('cli gpu queries', len(r), 'median elapsed_ms', statistics.median(x['elapsed_ms'] for x in r))"
date -u
