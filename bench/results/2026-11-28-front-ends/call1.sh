#!/usr/bin/env bash
# Call 1 (two H200s): the whole GPU suite on the head (issues 46, 47: the runner, patterns'
# --unique and the automorphism search changed), with its two-GPU sets.
set -uo pipefail
nproc; nvidia-smi -L
SUITE_QUERIES=120 timeout 560 scripts/gpu-suite.sh run > /dev/null 2>&1
echo "suite rc=$?"
tail -n 1 "$OUT/gpu-suite.log"
grep -E "^test executable" "$OUT/gpu-suite.log"
grep -E "^[a-z0-9-]+ [0-9]+ [1-9][0-9]*$" "$OUT/gpu-suite.log" | head
gzip -9 "$OUT/gpu-suite.log"
