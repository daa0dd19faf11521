#!/usr/bin/env bash
# Device call 9: the devices test (fixed: one control per query); `--device cpu` against
# `--device auto` on yeast's and hprd's (sub-millisecond) classes under the 10^5 limit, five
# rounds each in the order cpu auto auto cpu cpu auto auto cpu cpu auto (where auto runs the
# CPU path and opens no GPU, so the two differ only by run-to-run noise).
set -u
O=$OUT; R=/tmp/r9; mkdir -p $R/sets
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
timeout 100 .device-bin/tests/devices > $R/test-devices.txt 2>&1; echo "devices exit $?" >> $R/test-devices.txt
S=.device-bin/sets; sg=.device-bin/subgraph
for g in yeast hprd; do
  for c in $(ls $S/$g/queries | sed 's/query_\(.*\)_[0-9]*\.graph/\1/' | sort -u); do
    qs=$(ls $S/$g/queries/query_${c}_*.graph | sort -V | head -n 20)
    k=0
    for dev in cpu auto auto cpu cpu auto auto cpu cpu auto; do
      k=$((k+1))
      timeout 60 $sg match -q --format json --device $dev --timeout 3 --limit 100000 $S/$g/$g.graph $qs \
        > $R/sets/$g-$c-$dev-$k.jsonl 2>/dev/null
    done
  done
done
tar czf $O/call9.tgz -C $R .
