# Device call 9: the whole GPU suite on the final code (every GPU test executable, the oracle
# comparisons, the new depth-first sets from the first level with stealing on and off).
timeout 560 scripts/gpu-suite.sh run > /dev/null 2>&1
echo "suite rc=$?" >> "$OUT/gpu-suite.log"
