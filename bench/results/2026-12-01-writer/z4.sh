#!/usr/bin/env bash
# Call Z4 on the H200 host (issue 44), kept as run: the committed code (Z3's, with the row walk
# of its three formatting tasks shared and the writer's error returned first) through every
# test of subgraph-gpu's engine and device executables, then G1 dense_8_1's binary rate, base
# (main at 364a7d2) against new, two rounds.
#   bash bench/results/2026-12-01-writer/z4.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.xz; do [ -f "$f" ] && xz -d -f "$f"; done
chmod +x "$b"/*
mkdir -p "$O" /tmp/w
exec > >(tee "$O/z4.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for t in gpu-engine-test gpu-device-test; do
  echo "== $t"
  SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 400 "$b/$t" 2>&1 | grep -E "^test |test result|panicked"
  echo "$t rc=${PIPESTATUS[0]}"
done
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
SYSTEMS="base=$b/sg-base new=$b/sg-new" FLAGS="--device gpu" LIMIT=500000000 FORMATS=binary ROUNDS=2 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-null-bin" /tmp/w/G1.sgb /tmp/w/G1_q/dense_8_1.graph >/dev/null
cat "$O/g1-null-bin.csv"
echo "== done $(date -u +%FT%TZ)"
