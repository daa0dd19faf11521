#!/usr/bin/env bash
# Device call 12 (3cb81d9, the review's shared presence check): the devices test executable,
# and the CLI under --device gpu and auto on HPRD's first 20 queries against --device cpu.
set -u
O=$OUT; R=/tmp/r12; mkdir -p $R
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
timeout 60 .device-bin/tests/devices > $R/test-devices.txt 2>&1; echo "devices exit $?" >> $R/test-devices.txt
qs=$(ls .device-bin/data/hprd/queries/*.graph | sort -V | head -n 20)
for dev in cpu gpu auto; do
  timeout 60 .device-bin/subgraph match --format json --device $dev .device-bin/data/hprd/HPRD.graph $qs > $R/hprd-$dev.jsonl 2> $R/hprd-$dev.err
done
tar czf $O/call12.tgz -C $R .
