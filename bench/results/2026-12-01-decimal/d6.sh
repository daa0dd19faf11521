#!/usr/bin/env bash
# Call D6 on the H200 host (issue 44): every test of subgraph-gpu's engine and device
# executables, built from 7d6afc6 (the text rows' digits kept per column), on the GPU.
#   bash bench/results/2026-12-01-decimal/d6.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.xz; do [ -f "$f" ] && xz -d -f "$f"; done
chmod +x "$b"/*
mkdir -p "$O"
exec > >(tee "$O/d6.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for t in gpu-engine-test gpu-device-test; do
  echo "== $t"
  SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 400 "$b/$t" 2>&1 | grep -E "^test |test result|panicked"
  echo "$t rc=${PIPESTATUS[0]}"
done
echo "== done $(date -u +%FT%TZ)"
