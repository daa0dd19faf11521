#!/usr/bin/env bash
# Call Z6 on the H200 host (issue 44), kept as run: where G3 sparse_12_4's written rows go, by a
# diagnostic build (`sg-trace`: the head with z6/trace.patch, timers not committed) writing the
# first 5*10^8 (and 10^8) matches to /dev/null in binary; G1 dense_8_1 beside it.
#   bash bench/results/2026-12-01-writer/z6.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
xz -d -f "$b/sg-trace.xz"; chmod +x "$b"/*
mkdir -p "$O" /tmp/w
exec > >(tee "$O/z6.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
timeout 120 "$b/sg-trace" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
timeout 120 "$b/sg-trace" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
for g in "G3 /tmp/w/G3_q/sparse_12_4.graph 500000000" "G3 /tmp/w/G3_q/sparse_12_4.graph 100000000" \
         "G1 /tmp/w/G1_q/dense_8_1.graph 500000000"; do set -- $g
  echo "== $1 $(basename $2) first $3, binary to /dev/null"
  timeout 60 "$b/sg-trace" match /tmp/w/$1.sgb $2 --device gpu -q --format json --limit $3 --output-format binary \
    --output /dev/null 2>&1 | grep -E "TRACE|elapsed" | sed 's/,"candidates.*//'
done
echo "== done $(date -u +%FT%TZ)"
