#!/usr/bin/env bash
# Device call 1 (2026-11-25 night): the depth-first kernel's stop flag relayed through device
# memory (new) against 517b56f (old: the host flag read every 256 rows or tails): stop latency
# at --timeout 0.3 and kernel time on the heavy set and G3, interleaved twice; then the Python
# package on the GPU (pytest, bench/python-devices.py on HPRD's oracle), a property pattern on
# --device gpu against --device cpu, and last the GPU suite (scripts/gpu-suite.sh run).
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
{ date; nproc; nvidia-smi -L; python3 --version; } > "$res/machine.txt" 2>&1
if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
  lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
  [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
cp $B/subgraph $B/subgraph-new
$B/subgraph gen graph --model rmat --vertices 1048576 --edges 16777216 --vertex-labels 2 --label-dist uniform --seed 3 --output /tmp/g.sgb > /dev/null 2>&1
$B/subgraph gen queries /tmp/g.sgb --size 8 --count 3 --kind dense --seed 4 --output /tmp/q > /dev/null 2>&1
export HEAVY_TIMEOUT=5
OUT=$res/gen HEAVY_VARIANTS=' ' bash bench/gpu-bench.sh g3-variants > /dev/null 2>&1
for round in 1 2; do
  for which in old new; do
    cp $B/subgraph-$which $B/subgraph
    OUT=$res/perf-$which-$round HEAVY_VARIANTS='gpu' timeout 120 bash bench/gpu-bench.sh heavy-set > /dev/null 2>&1
    OUT=$res/perf-$which-$round HEAVY_VARIANTS='gpu' timeout 120 bash bench/gpu-bench.sh g3-variants > /dev/null 2>&1
    for mode in count stream; do
      extra=(); [ $mode = stream ] && extra=(--output /dev/null --limit 100000000000)
      timeout 60 $B/subgraph match --device gpu --timeout 0.3 --format json -q "${extra[@]}" /tmp/g.sgb /tmp/q/*.graph \
        > $res/timeout-$which-$mode-$round.jsonl 2> $res/timeout-$which-$mode-$round.err
    done
  done
done
cp $B/subgraph-new $B/subgraph
# The Python package (built here with maturin: .device-bin/wheel) on the GPU.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $B/wheel/*.whl > $res/pip.txt 2>&1
export PYTHONPATH=/tmp/site
(cd /tmp && timeout 200 python3 -m pytest -q -p no:cacheprovider "$OLDPWD/crates/subgraph-py/tests") > $res/pytest.txt 2>&1
echo "pytest rc=$?" >> $res/pytest.txt
timeout 200 python3 bench/python-devices.py $B/data/hprd/HPRD.graph $B/data/hprd/expected_output.res $B/data/hprd/queries/*.graph \
  --cli $B/subgraph --devices gpu cpu auto --runs 5 --rows 20 --out $res/python-devices.csv > $res/python-devices.md 2>&1
echo "python-devices rc=$?" >> $res/python-devices.md
# A pattern with property tests and names on the GPU (a restricted query: handed to the CPU).
n=tests/data/named
for dev in cpu gpu; do
  $B/subgraph match --device $dev --format json -q --output $res/pattern-$dev.csv $n/edges.txt --vertex-labels $n/labels.txt \
    --vertex-props $n/props.csv --pattern 'MATCH (a:Person)-[:knows]->(b:Person) WHERE b.born < 1920 RETURN a, b' \
    > $res/pattern-$dev.json 2> $res/pattern-$dev.err
done
cd $OUT && tar czf results.tgz res && cd - > /dev/null
SUITE_QUERIES=40 timeout 260 bash scripts/gpu-suite.sh run > /dev/null 2>&1
tail -3 $OUT/gpu-suite.log
cat $res/pytest.txt | tail -3; cat $res/python-devices.md | tail -6
