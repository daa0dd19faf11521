#!/usr/bin/env bash
# Call A (one H200): the whole GPU suite on issue 38's moved code (5bfd1e5, built by
# `scripts/gpu-suite.sh build` in a worktree of that commit), 120 queries a set.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SUITE_QUERIES=120 timeout 560 scripts/gpu-suite.sh run > /dev/null 2>&1
echo "suite rc=$?"
tail -n 1 "$OUT/gpu-suite.log"
grep -E "^test executable" "$OUT/gpu-suite.log"
grep -E "^[a-z0-9-]+ [0-9]+ [1-9][0-9]*$" "$OUT/gpu-suite.log" | head
gzip -9 "$OUT/gpu-suite.log"
