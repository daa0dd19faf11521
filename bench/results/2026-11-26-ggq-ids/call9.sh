#!/usr/bin/env bash
# Device call 9: GGQ's GPU tests after the test's threshold fix, and the exists form of
# bench/ggq-ids.sh at 55 universities; results into $OUT.
set -u
cd "$(dirname "$0")/../../.."
export SUBGRAPH_REQUIRE_GPU=1
( time timeout 120 .device-bin/tests/engine tree_ ) > "$OUT/test-tree.txt" 2>&1
UNIVERSITIES=55 FORMS=exists RUNS=2 TIMEOUT=3 timeout 150 bash bench/ggq-ids.sh run /tmp/b > "$OUT/bench.log" 2>&1
tar czf "$OUT/exists55.tgz" -C /tmp/b .
