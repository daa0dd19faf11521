#!/bin/bash
# Device call P6: half rows kept as loaded, four in flight at 128 dimensions (new) against the committed half search (prev: four rows widened at load).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; P=$PWD/.device-bin/subgraph-prev
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx SUBGRAPH_ANN_AHEAD=0
date -u
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $N ann build $D/base.fvecs --output $D/h.sgi --device gpu > /dev/null 2>&1; echo "build rc $?"
timeout 60 $P ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu --precision half -o /tmp/s-prev.csv > /dev/null 2>&1
timeout 60 $N ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu --precision half -o /tmp/s-new.csv > /dev/null 2>&1
cmp /tmp/s-prev.csv /tmp/s-new.csv && echo "HALF SEARCH IDENTICAL ef 64"
for round in 1 2 3; do for b in prev new; do B=$N; [ $b = prev ] && B=$P
  timeout 60 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs 32,48,64,96,128 --runs 10 --precision half --out $OUT/raw/$b-$round > /dev/null 2>&1; echo "$b bench $round rc $?"; done; done
python3 - <<'PY'
import csv, glob, os
best = {}
for f in glob.glob(os.environ['OUT'] + '/raw/*/ann.csv'):
    name = os.path.basename(os.path.dirname(f)).rsplit('-', 1)[0]
    for r in csv.DictReader(open(f)):
        k = (int(r['ef']), name); best[k] = max(best.get(k, 0), float(r['qps']))
for ef in sorted({e for e, _ in best}):
    print(ef, 'prev %.0f new %.0f ratio %.3f' % (best[(ef, 'prev')], best[(ef, 'new')], best[(ef, 'new')] / best[(ef, 'prev')]))
PY
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
