#!/usr/bin/env bash
# Call 1 (nvidia-h200-x2, d526062 + the suite's two-GPU sets): the GPU suite on the head.
set -uo pipefail
nvidia-smi -L
SUITE_QUERIES=120 scripts/gpu-suite.sh run > /dev/null 2>&1
tail -n 3 "$OUT/gpu-suite.log"
grep -E "^test executable|^== (hprd|yeast)-gpus2|^== yeast-part|^== hprd-part" -A1 "$OUT/gpu-suite.log" | head -60
gzip -9 "$OUT/gpu-suite.log"
