#!/usr/bin/env bash
# Call 2 (one H200): SGSI's columnar parked tables and the parked blocks' pipeline. First the
# ablation on G3's 12-vertex queries (FSIG's strategy, 1 GiB, as 2026-11-26-fsig.md), each
# variant twice, alternated; then the oracle sets that park; then every GPU test executable.
set -uo pipefail
b=bench/gpu-bench.sh
sg=.device-bin/subgraph
r=/tmp/r2
mkdir -p $r
start=$SECONDS
OUT=$r/g3 timeout 120 $b g3-graph
echo "g3 graph at $((SECONDS - start)) s"
qs=$(ls /tmp/G3_q/*_12_*.graph | sort -V)
variants=("off --gpu-park off"
  "rows --gpu-park on --gpu-park-layout rows"
  "rows-nopipe --gpu-park on --gpu-park-layout rows --gpu-pipeline off"
  "columns --gpu-park on --gpu-park-layout columns"
  "columns-nopipe --gpu-park on --gpu-park-layout columns --gpu-pipeline off"
  "auto-rows --gpu-park auto --gpu-park-layout rows"
  "auto-columns --gpu-park auto --gpu-park-layout columns")
for k in 1 2; do for v in "${variants[@]}"; do
  # shellcheck disable=SC2086
  timeout 60 $sg match -q --format json --device gpu --gpu-strategy fsig --gpu-memory 1G ${v#* } \
    --timeout 10 /tmp/G3.sgb $qs >$r/g3-${v%% *}-$k.jsonl 2>$r/g3-${v%% *}-$k.err
done; done
echo "ablation done at $((SECONDS - start)) s"
OUT=$r SUITE_QUERIES=120 SUITE_ONLY='park' timeout 150 scripts/gpu-suite.sh run >/dev/null 2>&1
grep -E "^[a-z0-9-]+ [0-9]+ [0-9]+$|passed" $r/gpu-suite.log
echo "oracles done at $((SECONDS - start)) s"
for exe in .device-bin/tests/*; do
  left=$((585 - SECONDS))
  t0=$SECONDS
  SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout $left "$exe" >$r/test-$(basename "$exe").log 2>&1
  echo "test executable $(basename "$exe"): rc=$?, $((SECONDS - t0)) s"
  grep -E "^test result|parked|FAILED|panicked" $r/test-$(basename "$exe").log | head -5
done
tar czf "$OUT/call2.tgz" -C /tmp r2
