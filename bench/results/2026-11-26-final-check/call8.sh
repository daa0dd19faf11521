#!/usr/bin/env bash
# Device call 8 (one H200): after the review fixes (automorphisms listed once per query up to
# 4096, else walked per row; the binary reader hardened): the GPU test executables, then
# streaming G1 dense_8_1 in binary (10^9) and text (10^8) again.
set -u
O=$OUT; R=/tmp/r8; mkdir -p $R
b=.device-bin; sg=$b/subgraph; root=$PWD
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
for t in $b/tests/*; do
  timeout 200 $t > $R/test-$(basename $t).log 2>&1; echo "rc $?" >> $R/test-$(basename $t).log
done
tar czf $O/call8.tgz -C $R .
( cd /tmp && timeout 120 python3 $root/$b/bigraph_gen.py graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) > $R/g1-gen.txt 2>&1
$sg convert /tmp/G1.graph /tmp/G1.sgb >> $R/g1-gen.txt 2>&1
q=/tmp/G1_q/dense_8_1.graph
for spec in "binary 1000000000" "text 100000000"; do
  set -- $spec
  /usr/bin/time -v timeout 150 $sg match --format json --device gpu --limit $2 --output /dev/null --output-format $1 \
      /tmp/G1.sgb $q > $R/stream-$1-$2.json 2> $R/stream-$1-$2.err
  tar czf $O/call8.tgz -C $R .
done
