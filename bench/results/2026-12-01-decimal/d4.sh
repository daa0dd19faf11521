#!/usr/bin/env bash
# Call D4 on the H200 host (issue 44): `new3` (D2's `new2` with the decimal digits inlined into
# their callers in other crates: D1-D3 ran them as calls) against `new2` (decimal digits and
# 1 MiB batches, WRITE_BATCH) and `base` (main at 1d7a51f): G3 sparse_12_4 and G1 dense_8_1 in
# text and binary to /dev/null on the GPU; the rows written compared first.
#   bash bench/results/2026-12-01-decimal/d2.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.xz; do [ -f "$f" ] && xz -d -f "$f"; done
chmod +x "$b"/*
mkdir -p "$O" /tmp/w
exec > >(tee "$O/d4.log") 2>&1
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
for s in base new3; do
  timeout 60 "$b/sg-$s" match /tmp/w/G3.sgb $G3q --device gpu -q --limit 2000000 --output-format binary \
    --output /tmp/w/rows.bin > /dev/null; echo "$s G3 binary rc=$? $(python3 "$b/rows.py" /tmp/w/rows.bin)"
  timeout 60 "$b/sg-$s" match /tmp/w/G3.sgb $G3q --device gpu -q --limit 2000000 --output-format text \
    --output /tmp/w/rows.txt > /dev/null
  echo "$s G3 text rc=$? lines $(wc -l < /tmp/w/rows.txt) sorted md5 $(sort /tmp/w/rows.txt | md5sum | cut -c1-16)"
done
rm -f /tmp/w/rows.bin /tmp/w/rows.txt
show() { python3 -c "
import csv,sys
for r in list(csv.reader(open(sys.argv[1])))[1:]: print(' '.join(r[:5]), r[5], r[6], 'ms', r[7], '/s', r[8], '% CPU')" "$1"; }
S="base=$b/sg-base new2=$b/sg-new2 new3=$b/sg-new3"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=200000000 FORMATS="text" ROUNDS=3 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g3-text" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-text.csv"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=500000000 FORMATS="binary" ROUNDS=3 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g3-bin" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-bin.csv"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=200000000 FORMATS="text" ROUNDS=3 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-text" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-text.csv"
SYSTEMS=$S FLAGS="--device gpu" LIMIT=500000000 FORMATS="binary" ROUNDS=3 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-bin" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-bin.csv"
echo "== done $(date -u +%FT%TZ)"
