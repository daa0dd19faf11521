#!/usr/bin/env bash
# Device call 4 (one H200): the GPU test executables on the build with binary output and the
# bulk writer of the GPU join; streaming G1's dense_8_1 (906,856,634,965 embeddings) to
# /dev/null under limits in binary and text; G3 three times with the read-counted planner budget.
set -u
O=$OUT; R=/tmp/r4; mkdir -p $R
b=.device-bin; sg=$b/subgraph
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
for t in $b/tests/*; do
  timeout 200 $t > $R/test-$(basename $t).log 2>&1; echo "rc $?" >> $R/test-$(basename $t).log
done
tar czf $O/call4.tgz -C $R .
root=$PWD
( cd /tmp && timeout 120 python3 $root/$b/bigraph_gen.py graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) > $R/g1-gen.txt 2>&1
$sg convert /tmp/G1.graph /tmp/G1.sgb >> $R/g1-gen.txt 2>&1
q=/tmp/G1_q/dense_8_1.graph
for spec in "binary 1000000000" "text 100000000" "binary 10000000000"; do
  set -- $spec
  /usr/bin/time -v timeout 200 $sg match --format json --device gpu --limit $2 --output /dev/null --output-format $1 \
      /tmp/G1.sgb $q > $R/stream-$1-$2.json 2> $R/stream-$1-$2.err
  tar czf $O/call4.tgz -C $R .
done
$sg match -q --format json --device gpu --limit 1000000 --output $R/rows-1e6.bin --output-format binary /tmp/G1.sgb $q > $R/rows-1e6.json 2>&1
ls -l $R/rows-1e6.bin > $R/rows-1e6.ls; rm -f $R/rows-1e6.bin
for k in 1 2 3; do
  OUT=$R/g3-$k HEAVY_VARIANTS=gpu HEAVY_TIMEOUT=10 timeout 60 bench/gpu-bench.sh g3-variants > $R/g3-$k.txt 2>&1
done
tar czf $O/call4.tgz -C $R .
