# Device call 12 (e0c716f: one shared random tree generator for GGQ's tests): the engine
# executable's tree tests.
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 300 .device-bin/tests/engine tree_ > "$OUT/call12-tree-tests.log" 2>&1
echo "rc=$?" >> "$OUT/call12-tree-tests.log"
