#!/usr/bin/env bash
# Call D5 on the H200 host (issue 44): `new4` (text and CSV digits kept per column from the row
# before, decimal::Columns) against `new2` (3867f00: digits eight at a time, 1 MiB batches) and
# `base` (main at 1d7a51f): G3 sparse_12_4 and G1 dense_8_1 in text and CSV to /dev/null on
# the GPU, G3 text on 4 host threads; the rows written compared first.
#   bash bench/results/2026-12-01-decimal/d5.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.xz; do [ -f "$f" ] && xz -d -f "$f"; done
chmod +x "$b"/*
mkdir -p "$O" /tmp/w
exec > >(tee "$O/d5.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
if [ ! -f /tmp/w/G3.sgb ]; then
  ( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
      --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
      sparse:12:4 ) | tail -1
  ( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
      --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
  timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
  timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
fi
G1q=/tmp/w/G1_q/dense_8_1.graph G3q=/tmp/w/G3_q/sparse_12_4.graph
for s in base new4; do
  for f in text csv; do
    for g in "G3.sgb $G3q" "G1.sgb $G1q"; do
      set -- $g
      timeout 60 "$b/sg-$s" match /tmp/w/$1 $2 --device gpu -q --limit 2000000 --output-format $f \
        --output /tmp/w/rows.txt > /dev/null
      echo "$s $f ${1%.sgb} rc=$? lines $(wc -l < /tmp/w/rows.txt) sorted md5 $(sort /tmp/w/rows.txt | md5sum | cut -c1-16)"
    done
  done
done
# How often a row's column repeats the row before's (G3's first 10^6 text rows).
timeout 60 "$b/sg-new4" match /tmp/w/G3.sgb $G3q --device gpu -q --limit 1000000 --output-format text \
  --output /tmp/w/rows.txt > /dev/null
python3 -c "
import sys
prev=None; same=[0]*12; n=0
for line in open('/tmp/w/rows.txt'):
    if line.startswith('#'): continue
    r=line.split()
    if prev: same=[s+(a==b) for s,a,b in zip(same,r,prev)]; n+=1
    prev=r
print('G3 columns equal to the row before:', ' '.join('%.2f' % (s/n) for s in same))"
rm -f /tmp/w/rows.txt
show() { python3 -c "
import csv,sys
for r in list(csv.reader(open(sys.argv[1])))[1:]: print(' '.join(r[:5]), r[5], r[6], 'ms', r[7], '/s', r[8], '% CPU')" "$1"; }
S="base=$b/sg-base new2=$b/sg-new2 new4=$b/sg-new4"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=200000000 FORMATS="text csv" ROUNDS=3 TIMEOUT=60 \
    timeout 250 bash bench/output-rate.sh "$O/g3-text" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-text.csv"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=200000000 FORMATS="text" ROUNDS=3 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-text" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-text.csv"
SYSTEMS="new2=$b/sg-new2 new4=$b/sg-new4" FLAGS="--device gpu --threads 4" LIMIT=100000000 FORMATS="text" ROUNDS=1 TIMEOUT=60 \
    timeout 120 bash bench/output-rate.sh "$O/g3-text-4" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-text-4.csv"
echo "== done $(date -u +%FT%TZ)"
