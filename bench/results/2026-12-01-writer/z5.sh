#!/usr/bin/env bash
# Call Z5 on the H200 host (issue 44), kept as run: what G3 sparse_12_4's writing is bound by.
# The full JSON report of the new code (Z4's binary) writing the first 5*10^8 matches to
# /dev/null in binary, of the same count without writing, and of the same count breadth first
# to the last level (--gpu-dfs off --tail off --spasm off); the same for G1 dense_8_1.
#   bash bench/results/2026-12-01-writer/z5.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/sg-new.xz "$b"/sg-base.xz; do [ -f "$f" ] && xz -d -f "$f"; done
chmod +x "$b"/*
mkdir -p "$O" /tmp/w
exec > >(tee "$O/z5.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
timeout 120 "$b/sg-new" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
timeout 120 "$b/sg-new" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
for g in "G3 /tmp/w/G3_q/sparse_12_4.graph" "G1 /tmp/w/G1_q/dense_8_1.graph"; do set -- $g
  echo "== $1 written, binary"
  timeout 60 "$b/sg-new" match /tmp/w/$1.sgb $2 --device gpu -q --format json --limit 500000000 --output-format binary \
    --output /dev/null
  echo "== $1 counted"
  timeout 60 "$b/sg-new" match /tmp/w/$1.sgb $2 --device gpu -q --format json --limit 500000000
  echo "== $1 counted breadth first to the last level"
  timeout 60 "$b/sg-new" match /tmp/w/$1.sgb $2 --device gpu -q --format json --limit 500000000 --gpu-dfs off \
    --tail off --spasm off
done
echo "== done $(date -u +%FT%TZ)"
