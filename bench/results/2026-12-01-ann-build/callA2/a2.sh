#!/bin/bash
# Device call A2 (issue 40): the GPU build with the diverse choice ROWS at a time, its arrays set
# on the device and the shuffle on every core, against main (e8b7d7d), then hnswlib's 16-core
# build in the same lease; the build's rows in flight (SUBGRAPH_ANN_ROWS) tried.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
cd .device-bin && for f in *.gz; do gunzip -f $f; done; chmod +x *; cd ..
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; nproc
D=/tmp/ann/g128; mkdir -p $D $OUT/raw; export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
B=.device-bin/subgraph-base N=.device-bin/subgraph-new
timeout 120 $B gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs \
  --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
build() { # name binary env...
  local name=$1 x=$2; shift 2
  env "$@" timeout 100 $x ann build $D/base.fvecs --output $D/gpu-$name.sgi --device gpu > $OUT/raw/build-$name-$try.json 2>/dev/null
  echo "build $name $try rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$name-$try.json)"; }
try=cold; build base $B A=1; build new $N A=1
for try in 1 2 3; do build base $B A=1; build new $N A=1; build r16 $N SUBGRAPH_ANN_ROWS=16; build r32 $N SUBGRAPH_ANN_ROWS=32; done
for v in new r16 r32; do cmp $D/gpu-base.sgi $D/gpu-$v.sgi && echo "index: $v = base byte for byte"; done
python3 - $OUT/raw <<'PY'
import json, sys, glob, collections
ph = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/build-*-[123].json')):
    name = f.split('build-')[1].rsplit('-', 1)[0]
    for p in json.load(open(f))['phases']:
        if p['seconds'] > 0.02: ph[(name, p['phase'])].append(p['seconds'])
for (n, p), v in sorted(ph.items()): print(f"{n:5} {p:45} " + ' '.join('%.3f' % x for x in v))
PY
timeout 100 .device-bin/lanes-test alloc_ones 2>&1 | grep "test result"
timeout 150 .device-bin/gpu-build-test 2>&1 | grep "test result"
timeout 250 .device-bin/gpu-test 2>&1 | grep "test result\|FAIL\|panic" | head
SITE=/tmp/annsite; mkdir -p $SITE
timeout 200 python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir --target $SITE .whl/hnswlib-0.8.0.tar.gz; echo "pip rc $? $SECONDS"
PYTHONPATH=$SITE timeout 150 python3 bench/ann/hnsw_saved.py build $D/base.fvecs $D/hnsw.bin --threads 16; echo "hnswlib rc $? $SECONDS"
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
