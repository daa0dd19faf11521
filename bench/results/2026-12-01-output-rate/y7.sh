#!/usr/bin/env bash
# Call Y7 on the H200 host, kept as run: regular files written a mebibyte at a time again
# (`new`, the final code) against Y6's code (`y6`: every batch straight through, 64 KiB) and
# `base` (main at ffa4720), binary rows of G1 dense_8_1 and G3 sparse_12_4 on the GPU, to a
# file on the host's ext4 disk and to /dev/null, alternating systems, two rounds.
#   bash bench/results/2026-12-01-output-rate/y7.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.gz; do [ -f "$f" ] && gunzip -f "$f"; done
mkdir -p "$O" /tmp/w
exec > >(tee "$O/y7.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
S3="base=$b/sg-base y6=$b/sg-y6 new=$b/sg-new"
show() { python3 -c "
import csv,sys
for r in list(csv.reader(open(sys.argv[1])))[1:]: print(' '.join(r[:5]), r[5], r[6], 'ms', r[7], '/s', r[8], '% CPU')" "$1"; }
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=200000000 FORMATS=binary SINKS="file null" ROUNDS=2 FILE_DIR=/tmp/w TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-file" /tmp/w/G1.sgb /tmp/w/G1_q/dense_8_1.graph >/dev/null; show "$O/g1-file.csv"
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=100000000 FORMATS=binary SINKS="file" ROUNDS=2 FILE_DIR=/tmp/w TIMEOUT=60 \
    timeout 150 bash bench/output-rate.sh "$O/g3-file" /tmp/w/G3.sgb /tmp/w/G3_q/sparse_12_4.graph >/dev/null; show "$O/g3-file.csv"
echo "== done $(date -u +%FT%TZ)"
