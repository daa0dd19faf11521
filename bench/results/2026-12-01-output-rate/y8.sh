#!/usr/bin/env bash
# Call Y8 on the H200 host, kept as run: after the review (the GSI join lists its expansions
# once a query, not at every finished table), the GPU engine tests of written rows.
#   bash bench/results/2026-12-01-output-rate/y8.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
gunzip -f "$b/gpu-engine-test.gz"
mkdir -p "$O"
exec > >(tee "$O/y8.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 150 "$b/gpu-engine-test" limits_outputs gpsm_equals fsig_equals \
    parked_tables restricted_queries 2>&1 | grep -E "^test |test result|panicked"; echo "tests rc=${PIPESTATUS[0]}"
