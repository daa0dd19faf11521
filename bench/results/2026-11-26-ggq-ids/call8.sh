#!/usr/bin/env bash
# Device call 8: GGQ's GPU tests, a CLI check of GGQ against GSI's join and the CPU (written
# rows sorted, compared by checksum), the whole engine test executable, then bench/ggq-ids.sh
# at 55 universities; results written into $OUT as they come.
set -u
cd "$(dirname "$0")/../../.."
o=$OUT
export SUBGRAPH_REQUIRE_GPU=1
( time timeout 120 .device-bin/tests/engine tree_ ) > "$o/test-tree.txt" 2>&1
( time timeout 60 .device-bin/tests/subgraph_gpu ggq ) > "$o/test-lib.txt" 2>&1
sg=.device-bin/subgraph
d=tests/data/named/people.nt
for p in 'MATCH (a)-->(b)-->(c) RETURN *' 'MATCH (a)-->(b)<--(c) RETURN DISTINCT a, c' 'MATCH (a)-[:knows]->(b), (a)-->(c) RETURN * LIMIT 100' 'MATCH (a)-->(b)-->(c) RETURN count(*)'; do
  for v in "--device gpu --gpu-strategy ggq" "--device gpu --gpu-strategy gsi --tree-count off" "--device cpu --tree-count off" "--device gpu"; do
    timeout 30 $sg match $v -q --format json --pattern "$p" --output /tmp/rows.txt "$d" > /tmp/report.json 2>/dev/null
    echo "== $p | $v: $(sort /tmp/rows.txt | md5sum | cut -c1-8) $(wc -l < /tmp/rows.txt) lines; $(grep -o '"embeddings":[0-9]*' /tmp/report.json) $(grep -o '"rows":[0-9]*' /tmp/report.json) $(grep -o '"gpu_strategy":"[a-z]*"' /tmp/report.json)"
  done
done > "$o/cli.txt" 2>&1
UNIVERSITIES=55 RUNS=2 TIMEOUT=3 timeout 200 bash bench/ggq-ids.sh run /tmp/b > "$o/bench.log" 2>&1
tar czf "$o/bench55.tgz" -C /tmp/b .
( time timeout 150 .device-bin/tests/engine --skip tree_ ) > "$o/test-engine.txt" 2>&1
