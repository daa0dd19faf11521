#!/usr/bin/env bash
# Call 5 (one H200, 0a8f109, the head): the whole GPU suite.
set -uo pipefail
SUITE_QUERIES=120 scripts/gpu-suite.sh run > /dev/null 2>&1
tail -n 1 "$OUT/gpu-suite.log"
grep -E "^test executable" "$OUT/gpu-suite.log"
grep -E "^[a-z0-9-]+ [0-9]+ [1-9][0-9]*$" "$OUT/gpu-suite.log" | head
gzip -9 "$OUT/gpu-suite.log"
