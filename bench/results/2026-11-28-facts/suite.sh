#!/usr/bin/env bash
# Call C (one H200): the whole GPU suite at 8a63686 (issue 39: label sets, parallel edges, self
# loops), with its multigraph sets (yeast made a multigraph, CPU against GPU; a knowledge graph's
# patterns against Oxigraph's counts), 80 queries a set.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SUITE_QUERIES=80 timeout 560 scripts/gpu-suite.sh run > /dev/null 2>&1
echo "suite rc=$?"
tail -n 1 "$OUT/gpu-suite.log"
grep -E "^test executable" "$OUT/gpu-suite.log"
grep -A3 -E "^== (yeast-multi|kg)" "$OUT/gpu-suite.log" | head -40
grep -E "^[a-z0-9-]+ [0-9]+ [1-9][0-9]*$" "$OUT/gpu-suite.log" | head
grep -E "FAIL" "$OUT/gpu-suite.log" | head
gzip -9 "$OUT/gpu-suite.log"
