#!/usr/bin/env bash
# Call X1 on the H200 host (one GPU, 16 cores), kept as run: `--vertex-order degree` against
# `file` (bench/vertex-order.sh) on the GPU and the 16-core CPU, after a check that the GPU
# on renumbered graphs counts what the CPU counts on the file's numbering.
#   bash bench/results/2026-12-01-vertex-order/x1.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin S=$b/subgraph O=${OUT:-/tmp/out}
export SUBGRAPH=$S
mkdir -p "$O" /tmp/w
exec > >(tee "$O/x1.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
# A: the GPU on renumbered graphs against the CPU on the file's numbering and the known counts.
for set in hprd yeast; do
  d=tests/data/$set/HPRD.graph; k=tests/data/hprd/expected_output.res
  [ $set = yeast ] && d=tests/data/yeast/yeast.graph k=tests/data/yeast/expected.txt
  timeout 200 $S match -q --format json --device cpu --vertex-order file --timeout 10 $d tests/data/$set/queries > /tmp/w/$set-cpu.jsonl
  timeout 200 $S match -q --format json --device gpu --vertex-order degree --timeout 10 $d tests/data/$set/queries > /tmp/w/$set-gpu.jsonl
  python3 $b/compare-counts.py $k /tmp/w/$set-cpu.jsonl /tmp/w/$set-gpu.jsonl $set-gpu-degree | tail -1
done
# B: unlabelled R-MAT graphs, symmetric queries (the 4-cycle and the house on the smaller only): GPU (2 rounds) and 16 CPU threads (1 round).
for g in rmat16:65536:1048576 rmat18:262144:4194304; do
  IFS=: read -r name v e <<< "$g"
  timeout 60 $S gen graph --model rmat --vertices $v --edges $e --seed 1 --output /tmp/w/$name.sgb > /dev/null
  qs="$b/data/triangle.graph $b/data/k4.graph $b/data/diamond.graph $b/data/paw.graph"
  [ $name = rmat16 ] && qs="$qs $b/data/c4.graph $b/data/house.graph"
  FLAGS="--device gpu" ROUNDS=2 TIMEOUT=30 timeout 400 bash bench/vertex-order.sh /tmp/w/B-$name-gpu /tmp/w/$name.sgb $qs | tail -3
  FLAGS="--device cpu" ROUNDS=1 TIMEOUT=20 timeout 300 bash bench/vertex-order.sh /tmp/w/B-$name-cpu16 /tmp/w/$name.sgb $qs | tail -3
done
# C: labelled graphs, the heavy set on the GPU (2 rounds).
for g in yeast wordnet rmat16k; do
  FLAGS="--device gpu -q" ROUNDS=2 TIMEOUT=20 timeout 300 bash bench/vertex-order.sh /tmp/w/C-$g-gpu $b/data/$g.graph $(ls $b/heavy/$g/*.graph | sort -V) | tail -2
done
cd /tmp/w && tar czf "$O/x1.tgz" B-* C-* *-cpu.jsonl *-gpu.jsonl
echo "== done $(date -u +%FT%TZ)"
