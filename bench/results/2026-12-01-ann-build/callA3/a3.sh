#!/bin/bash
# Device call A3 (issue 40): one lease, the head of main (f0ce009's ANN code): hnswlib's 16-core
# build and its searches (bench/ann/cpu_alternate.py, hnswlib alone, 3 rounds), then our GPU
# build (cold, then two warm) and our GPU search in both precisions, 3 rounds.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
gunzip -f .device-bin/subgraph.gz; chmod +x .device-bin/subgraph
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; nproc; grep -m1 "model name" /proc/cpuinfo
D=/tmp/ann/g128; mkdir -p $D $OUT/raw; export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
S=.device-bin/subgraph
timeout 120 $S gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs \
  --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
SITE=/tmp/annsite; mkdir -p $SITE
timeout 200 python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir --target $SITE .whl/hnswlib-0.8.0.tar.gz; echo "pip rc $? $SECONDS"
export PYTHONPATH=$SITE
timeout 150 python3 bench/ann/hnsw_saved.py build $D/base.fvecs $D/hnsw.bin --threads 16; echo "hnswlib build rc $? $SECONDS"
timeout 240 python3 bench/ann/cpu_alternate.py --out $OUT/hnswlib --rounds 3 --runs 3 --efs 16,24,32,40,48,64,96,128,192,256 \
  --quiet 0 --max-starved 1 --system "hnswlib=python3 bench/ann/hnsw_saved.py serve $D/base.fvecs $D/hnsw.bin $D/query.fvecs $D/gt.ivecs --threads 16" \
  | grep -v "^  r[0-9]" | tail -25; echo "hnswlib search rc $? $SECONDS"
for try in cold warm1 warm2; do
  timeout 100 $S ann build $D/base.fvecs --output $D/gpu.sgi --device gpu > $OUT/raw/build-$try.json 2>/dev/null
  echo "build new $try rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$try.json)"; done
E=32,40,48,56,64,80,96,128
for round in 1 2 3; do for p in half single; do
  timeout 90 $S ann bench $D/gpu.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
    --precision $p --out $OUT/raw/$p-$round > /dev/null 2>&1
  echo "gnew $p $round rc $? $(cut -d, -f7,8,9 $OUT/raw/$p-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done
python3 .device-bin/at95.py $OUT/log.txt
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
