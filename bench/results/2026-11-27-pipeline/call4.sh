#!/usr/bin/env bash
# Device call 4 (one GPU): every GPU test executable on the final code (the engine's tests in
# parallel, as scripts/gpu-suite.sh runs them), then the R-MAT graph of call 3 (same generator
# and seeds) counted at P/8 and P/2 with --gpu-segment at the default and larger: is the
# per-segment work what the partitioned passes wait for?
set -u
O=$OUT; R=/tmp/r4; mkdir -p $R
b=.device-bin; sg=$b/subgraph
lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
for exe in $b/tests/*; do
  echo "== $(basename $exe) start $SECONDS" >> $R/tests.log
  timeout 330 $exe >> $R/tests.log 2>&1; echo "$(basename $exe) rc=$? at $SECONDS" >> $R/tests.log
done
tar czf $O/call4.tgz -C $R .
g=/tmp/rmat.sgb
$sg gen graph --model rmat --vertices 8388608 --edges 100000000 --vertex-labels 256 \
  --label-dist uniform --seed 7 --output $g 2> $R/gen.txt
for spec in dense:8 sparse:8 dense:12 sparse:12; do
  $sg gen queries $g --size "${spec#*:}" --count 6 --kind "${spec%:*}" --seed 3 --output "/tmp/q/${spec%:*}-${spec#*:}"
done
qs=$(find /tmp/q -name '*.graph' | sort -V)
P=2627638856
run() { local name=$1; shift; echo "$SECONDS $name" >> $R/progress.txt
  timeout 60 $sg match --format json --device gpu --timeout 10 "$@" $g $qs > $R/rmat-$name.jsonl 2> $R/rmat-$name.err
  tar czf $O/call4.tgz -C $R .; }
run eighth --gpu-memory $((P / 8))
run eighth-1M --gpu-memory $((P / 8)) --gpu-segment 1M
run eighth-4M --gpu-memory $((P / 8)) --gpu-segment 4M
run half --gpu-memory $((P / 2))
run half-4M --gpu-memory $((P / 2)) --gpu-segment 4M
run half-16M --gpu-memory $((P / 2)) --gpu-segment 16M
run incore --gpu-partitions off
echo "$SECONDS end" >> $R/progress.txt
tar czf $O/call4.tgz -C $R .
