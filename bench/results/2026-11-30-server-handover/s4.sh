#!/bin/bash
# Device call S4 (ccfef40): the server's gpu_ tests with --gpu-memory's segments (issue 43), and
# `serve --check --gpu-memory` over the walk graph of server-gpu-check.py's kind.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
B=$PWD/.device-bin
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export SUBGRAPH_PTX_CACHE=/tmp/ptx
SUBGRAPH_REQUIRE_GPU=1 timeout 200 $B/server-tests gpu_ --test-threads 1 --nocapture 2>&1 | grep -vE "^\s+[0-9]+:|^\s+at " | grep -v '"candidate_edges"' | tail -20
echo "server tests rc ${PIPESTATUS[0]}"; date -u
