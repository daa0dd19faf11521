#!/bin/bash
# Device call P5: half rows kept as loaded until used, eight in flight (new) against the committed half search (prev, four rows, widened at load).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; P=$PWD/.device-bin/subgraph-prev
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx SUBGRAPH_ANN_AHEAD=0
date -u
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $N ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $?"
for ef in 10 64 256; do
  timeout 60 $P ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision half -o /tmp/s-prev-$ef.csv > /dev/null 2>&1
  timeout 60 $N ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision half -o /tmp/s-new-$ef.csv > /dev/null 2>&1
  cmp /tmp/s-prev-$ef.csv /tmp/s-new-$ef.csv && echo "HALF SEARCH IDENTICAL ef $ef"
done
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
V="prev:P::half new:N::half new16:N:16:half single:N::single"
for round in 1 2 3; do for v in $V; do IFS=: read name b rows prec <<< "$v"; B=$N; [ $b = P ] && B=$P
  SUBGRAPH_ANN_ROWS=$rows timeout 90 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --precision $prec --out $OUT/raw/$name-$round > /dev/null 2>&1; echo "$name bench $round rc $?"
done; done
date -u
# /tmp/summ.py: the best QPS of each variant at each ef over the rounds, its ratio to prev, and the rounds' range (as in callP4/p4.sh)
python3 /tmp/summ.py $OUT "" prev,new,new16,single
timeout 100 ncu --clock-control none --section SpeedOfLight --section Occupancy -k regex:ganns_search -c 2 $N ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu --precision half -o /tmp/x.csv > $OUT/raw/ncu-new-64.txt 2>&1
awk '/ganns_search \([0-9]+, 1, 1\)x\(128/{f++} f==2' $OUT/raw/ncu-new-64.txt | grep -E "Duration|Achieved Occupancy|DRAM Throughput|Block Limit Registers" | head -6
timeout 100 .device-bin/ann-gpu half_precision 2>&1 | grep -E "^test |test result|panicked" | cut -c1-300
date -u; echo "elapsed $SECONDS"
if [ $SECONDS -lt 300 ]; then
  G=/tmp/ann/g960; mkdir -p $G
  timeout 90 $N gen vectors --count 1000000 --dim 960 --queries 10000 --gt-k 100 \
    --output $G/base.fvecs --queries-output $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen960 rc $?"
  timeout 50 $N ann build $G/base.fvecs --output $G/h.sgi --device gpu > /dev/null 2>&1; echo "build960 rc $?"
  for round in 1 2; do for b in prev new; do B=$N; [ $b = prev ] && B=$P
    timeout 40 $B ann bench $G/h.sgi $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu --efs 10,32,64,128,256,512 --runs 5 --precision half --out $OUT/raw/g960-$b-$round > /dev/null 2>&1; echo "960 $b bench $round rc $?"; done; done
  python3 /tmp/summ.py $OUT g960- prev,new
fi
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u
