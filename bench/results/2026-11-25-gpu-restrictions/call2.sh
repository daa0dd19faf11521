#!/usr/bin/env bash
# Device call 2 (2026-11-25 night): restricted queries (a pattern's property tests) on the GPU,
# their allowed sets ANDed into the device filter's candidate bitsets. Patterns with and without
# property tests on an R-MAT graph with a random integer property, --device gpu against
# --device cpu (16 cores); the property graph of tests/data/named; then the GPU suite (test
# executables, including restricted_queries_equal_the_cpu, and the oracle comparisons).
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
{ date; nproc; nvidia-smi -L; } > "$res/machine.txt" 2>&1
if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
  lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
  [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
$B/subgraph gen graph --model rmat --vertices 1048576 --edges 16777216 --vertex-labels 4 --label-dist uniform --seed 3 \
  --output /tmp/pg.sgb > $res/gen.txt 2>&1
python3 -c "
import numpy as np
age = np.random.default_rng(1).integers(0, 100, 1048576)
with open('/tmp/pg.csv', 'w') as f:
    f.write('id,age\n')
    f.write(''.join(f'{v},{a}\n' for v, a in enumerate(age)))
"
P1='MATCH (a:0)--(b:1)--(c:2), (a)--(c) WHERE a.age < 20 AND c.age >= 50 RETURN count(*)'
P2='MATCH (a:0)--(b:1)--(c:2), (a)--(c) RETURN count(*)'
P3='MATCH (a:0)--(b:1)--(c:0)--(d:1)--(a), (a)--(c) WHERE b.age < 10 AND d.age > 89 RETURN count(*)'
P4='MATCH (a:0)--(b:1)--(c:0)--(d:1)--(a), (a)--(c) RETURN count(*)'
for round in 1 2; do
  for dev in gpu cpu; do
    s=$(date +%s.%N)
    timeout 120 $B/subgraph match --device $dev --format json -q --timeout 30 --vertex-props /tmp/pg.csv /tmp/pg.sgb \
      --pattern "$P1" --pattern "$P2" --pattern "$P3" --pattern "$P4" > $res/rmat-$dev-$round.jsonl 2> $res/rmat-$dev-$round.err
    echo "$dev round $round: wall $(python3 -c "print(round(($(date +%s.%N) - $s) * 1e3))") ms (load, props, 4 patterns)" >> $res/walls.txt
  done
done
n=tests/data/named
for dev in cpu gpu; do
  $B/subgraph match --device $dev --directed --string-ids --vertex-labels $n/labels.txt --vertex-props $n/props.csv \
    --format json -q --output $res/named-$dev.csv $n/edges.txt --pattern \
    'MATCH (a:Person {field: "computing"})-[:knows]->(b)-[:created]->(c:Lang) WHERE c.born >= 1959 RETURN a, b, c' \
    --pattern 'MATCH (a:Person)-[:knows]->(b:Person) WHERE b.born < 1920 RETURN a, b' > $res/named-$dev.json 2> $res/named-$dev.err
done
cd $OUT && tar czf results.tgz res && cd - > /dev/null
SUITE_QUERIES=20 timeout 330 bash scripts/gpu-suite.sh run > /dev/null 2>&1
grep "rc=" $OUT/gpu-suite.log; tail -1 $OUT/gpu-suite.log
cat $res/walls.txt; cmp $res/named-cpu.csv $res/named-gpu.csv && echo named-equal
