#!/bin/bash
# Device call P1: where ganns_search's time goes (Nsight Compute, full set, SASS stall samples), 1M x 128, ef 64.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
M=$PWD/.device-bin/subgraph-main
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; ncu --version | tail -1
timeout 120 $M gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $M ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build.json)"
timeout 60 $M ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 32,48,64,96,128 --runs 10 --out $OUT/raw/bench > /dev/null 2>&1; echo "bench rc $?"; cat $OUT/raw/bench/ann.csv
timeout 240 ncu --clock-control none --set full --import-source no -k regex:ganns_search -c 2 -o /tmp/rep $M ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu -o /tmp/x.csv > $OUT/raw/ncu-run.txt 2>&1; echo "ncu rc $?"
timeout 60 ncu -i /tmp/rep.ncu-rep --print-details all > $OUT/raw/ncu-details.txt 2>&1; echo "details rc $?"
timeout 60 ncu -i /tmp/rep.ncu-rep --page source --csv --print-source sass > $OUT/raw/ncu-sass.csv 2>&1; echo "sass rc $? $(wc -l < $OUT/raw/ncu-sass.csv)"
grep -E "Duration|DRAM Throughput|Achieved Occupancy|Stall|Issue Slot|Eligible|L2 Hit|L1/TEX Hit|Registers" $OUT/raw/ncu-details.txt | head -60
ls /tmp/ptx | head
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
