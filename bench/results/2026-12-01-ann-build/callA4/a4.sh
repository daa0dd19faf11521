#!/bin/bash
# Device call A4 (issue 40): the GPU build's group size (SUBGRAPH_ANN_GPU_GROUP: local graphs of
# that many vertices, merged group after group; default len / (8 x SMs) = 946 at 1M on the H200)
# against build time and the search's speed at recall 0.95, half precision, two rounds.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
[ -f .device-bin/subgraph.gz ] && gunzip -f .device-bin/subgraph.gz; chmod +x .device-bin/subgraph
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
D=/tmp/ann/g128; mkdir -p $D $OUT/raw; export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
S=.device-bin/subgraph
timeout 120 $S gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs \
  --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $? $SECONDS"
timeout 100 $S ann build $D/base.fvecs --output $D/warmup.sgi --device gpu > /dev/null 2>&1
for g in 473 946 1892 3784; do for try in 1 2; do
  SUBGRAPH_ANN_GPU_GROUP=$g timeout 100 $S ann build $D/base.fvecs --output $D/g$g.sgi --device gpu > $OUT/raw/build-g$g-$try.json 2>/dev/null
  echo "build g$g $try rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-g$g-$try.json)"; done; done
E=32,40,48,56,64,80,96
for round in 1 2; do for g in 473 946 1892 3784; do
  timeout 90 $S ann bench $D/g$g.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 \
    --precision half --out $OUT/raw/g$g-$round > /dev/null 2>&1
  echo "gg$g half $round rc $? $(cut -d, -f7,8,9 $OUT/raw/g$g-$round/ann.csv | tail -n +2 | tr '\n' ' ')"
done; done
python3 .device-bin/at95.py $OUT/log.txt
python3 - $OUT/raw <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + '/build-*-2.json')):
    ph = {p['phase']: p['seconds'] for p in json.load(open(f))['phases']}
    print(f.split('/')[-1], ' '.join(f"{k.split(': ',1)[-1]}={v:.3f}" for k, v in ph.items() if k.startswith('layer of 1000000') and v > 0.01))
PY
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
