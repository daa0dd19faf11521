#!/usr/bin/env bash
# SGSI's partitions (issue 13) on the GPU machine, from the repository root with .device-bin
# carried (bench/gpu-bench.sh build): the GPU tests PART_TESTS of the engine (default: the
# partitioned layout's; all: every one), the library's and the device's; the HPRD and yeast oracles (100
# queries each) in core, under --gpu-memory at 1/2, 1/4 and 1/8 of the in-core peak, and
# partitioned with every segment copied; then an R-MAT graph of 2^23 vertices, 10^8 edges and
# 256 uniform labels with 6 dense and 6 sparse queries of 8 and 12 vertices, counted (10 s each)
# in core, at half and an eighth of the in-core peak P, at a quarter of the in-core graph G,
# at P/2 with nothing resident, partitioned with everything resident, in core again, the
# pipeline's ablation (P/2, P/8 and P/2 with nothing resident, each with --gpu-pipeline off,
# then P/2 on and off again), and with PART_CPU=1 on the CPU (5 s each). Everything lands in
# $OUT/partitions.tgz.
set -uo pipefail
bin=.device-bin; sg=$bin/subgraph; out=$OUT
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total --format=csv > "$out/gpu.txt"
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
{
  tests=${PART_TESTS:-partitioned_graphs_equal_the_cpu}; [ "$tests" = all ] && tests=
  # shellcheck disable=SC2086
  timeout 400 $bin/tests/engine $tests --test-threads 1; echo "engine rc=$?"
  timeout 120 $bin/tests/subgraph_gpu; echo "lib rc=$?"
  timeout 120 $bin/tests/device; echo "device rc=$?"
} > "$out/tests.log" 2>&1
d=$bin/data
hq=$(ls $d/hprd/queries/*.graph | head -n 100)
yq=$(cut -d' ' -f1 $d/yeast/expected.txt | head -n 100 | sed "s|^|$d/yeast/queries/|")
cmp() { # name graph answers flags...
  local name=$1 g=$2 ans=$3; shift 3
  local qs; [ "${name%%-*}" = hprd ] && qs=$hq || qs=$yq
  $sg match -q --format json --device gpu --timeout 20 "$@" "$g" $qs > "/tmp/o-$name.jsonl"
  [ -f /tmp/cpu-${name%%-*}.jsonl ] || $sg match -q --format json --device cpu --timeout 20 "$g" $qs > /tmp/cpu-${name%%-*}.jsonl
  python3 $bin/compare-counts.py "$ans" /tmp/cpu-${name%%-*}.jsonl "/tmp/o-$name.jsonl" "$name" | tail -n 1
  cp "/tmp/o-$name.jsonl" "$out/oracle-$name.jsonl"
}
peak() { python3 -c "import json,sys; print(max(json.loads(l).get('peak_device_bytes') or 0 for l in open(sys.argv[1])))" "$1"; }
{
  for set in "hprd $d/hprd/HPRD.graph $d/hprd/expected_output.res" "yeast $d/yeast/yeast.graph $d/yeast/expected.txt"; do
    read -r name g ans <<<"$set"
    cmp "$name-incore" "$g" "$ans" --gpu-partitions off
    P=$(peak "/tmp/o-$name-incore.jsonl"); echo "$name in-core peak $P"
    for k in 2 4 8; do cmp "$name-cap$k" "$g" "$ans" --gpu-memory $((P / k)); done
    cmp "$name-part" "$g" "$ans" --gpu-partitions on --gpu-segment 64K --gpu-resident 0
  done
} > "$out/oracles.log" 2>&1
# The R-MAT graph.
g=/tmp/rmat.sgb
/usr/bin/time -v $sg gen graph --model rmat --vertices 8388608 --edges 100000000 --vertex-labels 256 \
  --label-dist uniform --seed 7 --output $g 2> "$out/gen.txt"
$sg info --format json $g > "$out/info.json"
for spec in dense:8 sparse:8 dense:12 sparse:12; do
  $sg gen queries $g --size "${spec#*:}" --count 6 --kind "${spec%:*}" --seed 3 --output "/tmp/q/${spec%:*}-${spec#*:}"
done
qs=$(find /tmp/q -name '*.graph' | sort -V)
run() { local name=$1; shift; /usr/bin/time -v $sg match --format json --device gpu --timeout 10 "$@" $g $qs > "$out/rmat-$name.jsonl" 2> "$out/rmat-$name.err"; }
run incore --gpu-partitions off
P=$(peak "$out/rmat-incore.jsonl"); echo "P=$P" > "$out/rmat-budgets.txt"
G=$(python3 -c "import json,sys; print(min(json.loads(l)['space_bytes'] for l in open(sys.argv[1]) if json.loads(l)['space_bytes'] > 0))" "$out/rmat-incore.jsonl")
echo "G=$G" >> "$out/rmat-budgets.txt"
run half --gpu-memory $((P / 2))
run eighth --gpu-memory $((P / 8))
run quarter-of-graph --gpu-memory $((G / 4))
run stream-all --gpu-memory $((P / 2)) --gpu-resident 0
run part-resident --gpu-partitions on
run incore2 --gpu-partitions off
run half-nopipe --gpu-memory $((P / 2)) --gpu-pipeline off
run eighth-nopipe --gpu-memory $((P / 8)) --gpu-pipeline off
run stream-all-nopipe --gpu-memory $((P / 2)) --gpu-resident 0 --gpu-pipeline off
run half-b --gpu-memory $((P / 2))
run half-nopipe-b --gpu-memory $((P / 2)) --gpu-pipeline off
if [ -n "${PART_CPU:-}" ]; then
  $sg match --format json --device cpu --timeout 5 $g $qs > "$out/rmat-cpu.jsonl" 2> "$out/rmat-cpu.err"
fi
cd "$out" && tar czf partitions.tgz *.jsonl *.err *.txt *.json *.log && rm -f *.jsonl *.err *.json *.log
