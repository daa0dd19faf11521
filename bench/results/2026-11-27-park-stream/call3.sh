#!/usr/bin/env bash
# Call 3 (one H200): the cost of out-of-core on the H200 with the head's defaults (segments
# 1/64 of the budget, pipeline on), the R-MAT graph and queries of bench/partitions.sh (same
# generator, seeds and runs), and the intermediate tables' ablation at P/8: every table parked
# (--gpu-park on) row after row and column after column (SGSI), with and without the pipeline.
set -u
O=$OUT; R=/tmp/r3; mkdir -p $R
b=.device-bin; sg=$b/subgraph
nvidia-smi --query-gpu=name,memory.total --format=csv > $R/gpu.txt
g=/tmp/rmat.sgb
/usr/bin/time -v $sg gen graph --model rmat --vertices 8388608 --edges 100000000 --vertex-labels 256 \
  --label-dist uniform --seed 7 --output $g 2> $R/gen.txt
for spec in dense:8 sparse:8 dense:12 sparse:12; do
  $sg gen queries $g --size "${spec#*:}" --count 6 --kind "${spec%:*}" --seed 3 --output "/tmp/q/${spec%:*}-${spec#*:}"
done
qs=$(find /tmp/q -name '*.graph' | sort -V)
run() { local name=$1; shift; echo "$SECONDS $name" >> $R/progress.txt
  timeout 80 $sg match --format json --device gpu --timeout 10 "$@" $g $qs > $R/rmat-$name.jsonl 2> $R/rmat-$name.err; }
peak() { python3 -c "import json,sys; print(max(json.loads(l).get('peak_device_bytes') or 0 for l in open(sys.argv[1])))" "$1"; }
run incore --gpu-partitions off
P=$(peak "$R/rmat-incore.jsonl"); echo "P=$P" > "$R/rmat-budgets.txt"
G=$(python3 -c "import json,sys; print(min(json.loads(l)['space_bytes'] for l in open(sys.argv[1]) if json.loads(l)['space_bytes'] > 0))" "$R/rmat-incore.jsonl")
echo "G=$G" >> "$R/rmat-budgets.txt"
run half --gpu-memory $((P / 2))
run eighth --gpu-memory $((P / 8))
run quarter-of-graph --gpu-memory $((G / 4))
run stream-all --gpu-memory $((P / 2)) --gpu-resident 0
run part-resident --gpu-partitions on
run incore2 --gpu-partitions off
run half-nopipe --gpu-memory $((P / 2)) --gpu-pipeline off
run eighth-nopipe --gpu-memory $((P / 8)) --gpu-pipeline off
run eighth-park-rows --gpu-memory $((P / 8)) --gpu-park on --gpu-park-layout rows
run eighth-park-columns --gpu-memory $((P / 8)) --gpu-park on --gpu-park-layout columns
run eighth-park-rows-nopipe --gpu-memory $((P / 8)) --gpu-park on --gpu-park-layout rows --gpu-pipeline off
run eighth-park-columns-nopipe --gpu-memory $((P / 8)) --gpu-park on --gpu-park-layout columns --gpu-pipeline off
run half2 --gpu-memory $((P / 2))
run eighth2 --gpu-memory $((P / 8))
echo "$SECONDS end" >> $R/progress.txt
tar czf $O/call3.tgz -C $R .
cat $R/progress.txt
