# Device call 6, after the review mends (5ef1077: the spill rule asks lazily, a shared test
# check, CFL's adjacency built once): the GPU test executables, and FSIG on G3's 12-vertex
# queries under 1 GiB (counts as before; auto parked sparse_12_4 in call 5).
mkdir -p /tmp/r6
for exe in .device-bin/tests/*; do
  SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 420 "$exe" >/tmp/r6/$(basename "$exe").log 2>&1
  echo "test executable $(basename "$exe"): rc=$?"
done
OUT=/tmp/r6/g3 timeout 100 bench/gpu-bench.sh g3-graph
for p in auto off; do
  # shellcheck disable=SC2046
  timeout 60 .device-bin/subgraph match -q --format json --device gpu --gpu-strategy fsig --gpu-park $p \
    --gpu-memory 1G --timeout 10 /tmp/G3.sgb $(ls /tmp/G3_q/*_12_*.graph | sort -V) >/tmp/r6/g3-fsig-1G-$p.jsonl
done
tar czf "$OUT/call6.tgz" -C /tmp r6
