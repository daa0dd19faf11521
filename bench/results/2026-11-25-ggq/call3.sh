#!/usr/bin/env bash
# Device call 3 (2026-11-25 night): GGQ's tree-pattern counts (subgraph_core::tree on the CPU,
# subgraph_gpu::ggq on the GPU) against the general engines (--tree-count off) on both devices,
# on a directed, edge-labelled R-MAT graph; then the GPU test executables (tree_counts_equal_the_cpu
# among them).
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
{ date; nproc; nvidia-smi -L; } > "$res/machine.txt" 2>&1
if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
  lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
  [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
$B/subgraph gen graph --model rmat --vertices 1048576 --edges 16777216 --vertex-labels 4 --edge-labels 4 --directed \
  --label-dist uniform --seed 3 --output /tmp/t.sgb > $res/gen.txt 2>&1
T=(
  'MATCH (a:0)-->(b)-->(c:1) RETURN count(*)'
  'MATCH (a:0)-[:1]->(b)-[:2]->(c), (b)<-[:3]-(d:2) RETURN count(*)'
  'MATCH (a)-->(b:1)-->(c)-->(d:2) RETURN DISTINCT a'
  'MATCH (a:0)-->(b), (a)-->(c:1), (a)<--(d), (b)-->(e:3) RETURN count(*)'
  'MATCH (a:0)-[:0]->(b:1)-[:1]->(c:2)-[:2]->(d:3)<-[:3]-(e:0) RETURN count(*)'
)
args=(); for t in "${T[@]}"; do args+=(--pattern "$t"); done
# The tree passes twice per device; the general engines once, 10 s per pattern.
for v in "gpu auto 1" "cpu auto 1" "gpu off 1" "cpu off 1" "gpu auto 2" "cpu auto 2"; do
  set -- $v
  timeout 200 $B/subgraph match --device $1 --tree-count $2 --timeout 10 --format json -q /tmp/t.sgb "${args[@]}" \
    > $res/ggq-$1-$2-$3.jsonl 2> $res/ggq-$1-$2-$3.err
done
for exe in $B/tests/*; do
  SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 300 "$exe" > "$res/test-$(basename $exe).log" 2>&1
  echo "test executable $(basename "$exe"): rc=$?" >> "$res/tests.txt"
done
cd $OUT && tar czf results.tgz res && cd - > /dev/null
cat $res/tests.txt
for f in $res/ggq-*-1.jsonl; do echo "$f"; cut -c1-160 $f; done
