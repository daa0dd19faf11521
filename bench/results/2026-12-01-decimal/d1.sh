#!/usr/bin/env bash
# Call D1 on the H200 host (issue 44, the text format's written rows): numbers written eight
# digits at a time (`new`, subgraph_core::decimal) against `base` (main at 1d7a51f, itoa):
# G3 sparse_12_4 (12 columns) and G1 dense_8_1 (8 columns) in text and CSV to /dev/null on the
# GPU, G1 on the CPU's 16 threads; the rows written compared first.
#   bash bench/results/2026-12-01-decimal/d1.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.xz; do [ -f "$f" ] && xz -d -f "$f"; done
chmod +x "$b"/*
mkdir -p "$O" /tmp/w
exec > >(tee "$O/d1.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
G1q=/tmp/w/G1_q/dense_8_1.graph G3q=/tmp/w/G3_q/sparse_12_4.graph
# The rows: the first 2*10^6 of each (sorted, hashed), text and CSV, GPU and CPU.
for s in base new; do
  for f in text csv; do
    for g in "G3.sgb $G3q gpu" "G1.sgb $G1q gpu" "G1.sgb $G1q cpu"; do
      set -- $g
      timeout 60 "$b/sg-$s" match /tmp/w/$1 $2 --device $3 --threads 16 -q --limit 2000000 --output-format $f \
        --output /tmp/w/rows.txt > /dev/null
      echo "$s $f ${1%.sgb} $3 rc=$? lines $(wc -l < /tmp/w/rows.txt) sorted md5 $(sort /tmp/w/rows.txt | md5sum | cut -c1-16)"
    done
  done
done
rm -f /tmp/w/rows.txt
show() { python3 -c "
import csv,sys
for r in list(csv.reader(open(sys.argv[1])))[1:]: print(' '.join(r[:5]), r[5], r[6], 'ms', r[7], '/s', r[8], '% CPU')" "$1"; }
S="base=$b/sg-base new=$b/sg-new"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=200000000 FORMATS="text csv" ROUNDS=3 TIMEOUT=60 \
    timeout 240 bash bench/output-rate.sh "$O/g3-gpu" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-gpu.csv"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=200000000 FORMATS="text csv" ROUNDS=3 TIMEOUT=60 \
    timeout 240 bash bench/output-rate.sh "$O/g1-gpu" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-gpu.csv"
SYSTEMS=$S FLAGS="--device cpu --threads 16" LIMIT=100000000 FORMATS="text" ROUNDS=2 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-cpu" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-cpu.csv"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=200000000 FORMATS="text" SINKS="pipe file" ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g3-sinks" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-sinks.csv"
echo "== done $(date -u +%FT%TZ)"
