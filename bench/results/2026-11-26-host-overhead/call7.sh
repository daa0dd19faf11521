#!/usr/bin/env bash
# Device call 7: `--device auto` against `--device cpu` and `--device gpu` (issue 14 item 4).
# Every Sun & Luo class, 20 queries each, under the protocol's 10^5 limit: cpu and auto three
# rounds, gpu two, alternated per class; then G3's 16 queries complete, cpu/gpu/auto, two
# rounds. f3f6319's build; first the device test executable with call 6's failing test mended
# (it shared one `Gpu` with tests allocating in parallel: a race in the test, not the code).
set -u
O=$OUT; R=/tmp/r7; mkdir -p $R/sets $R/g3
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
timeout 100 .device-bin/tests/device > $R/test-device.txt 2>&1; echo "device exit $?" >> $R/test-device.txt
S=.device-bin/sets; sg=.device-bin/subgraph
for k in 1 2 3; do
  for g in yeast hprd wordnet; do
    for c in $(ls $S/$g/queries | sed 's/query_\(.*\)_[0-9]*\.graph/\1/' | sort -u); do
      qs=$(ls $S/$g/queries/query_${c}_*.graph | sort -V | head -n 20)
      devs="cpu auto gpu"; [ $k = 3 ] && devs="cpu auto"
      for dev in $devs; do
        timeout 120 $sg match -q --format json --device $dev --timeout 3 --limit 100000 $S/$g/$g.graph $qs \
          > $R/sets/$g-$c-$dev-$k.jsonl 2>/dev/null
      done
    done
  done
  tar czf $O/call7.tgz -C $R .
done
OUT=$R/gen timeout 120 bench/gpu-bench.sh g3-graph > $R/gen.txt 2>&1
qs=$(ls /tmp/G3_q/*.graph | sort -V)
for k in 1 2; do
  for dev in cpu gpu auto; do
    timeout 100 $sg match -q --format json --device $dev --timeout 10 /tmp/G3.sgb $qs > $R/g3/g3-$dev-$k.jsonl 2>/dev/null
  done
done
tar czf $O/call7.tgz -C $R .
