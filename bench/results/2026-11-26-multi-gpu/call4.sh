#!/usr/bin/env bash
# Device call 4 (nvidia-h200-x2): a 10^9-edge R-MAT graph (2^26 vertices, 256 uniform labels),
# generated as .sgb, its load time, and 12 queries (dense/sparse, 8/12 vertices, 3 each) counted
# in full within 12 s each on one GPU and on two.
set -u
O=$OUT; R=/tmp/r4; mkdir -p $R
export OUT=$R
LARGE_VERTICES=67108864 LARGE_EDGES=1000000000 LARGE_LABELS=256 LARGE_LABEL_DIST=uniform LARGE_QUERIES=3 LARGE_MODES=full \
  LARGE_DEVICES="gpu2 gpu" LARGE_TIMEOUT=12 timeout 560 bash bench/gpu-bench.sh large > $R/large.log 2>&1
echo "rc $?" >> $R/large.log
ls -la /tmp/rmat-256.sgb >> $R/large.log
tar czf $O/call4.tgz -C $R .
