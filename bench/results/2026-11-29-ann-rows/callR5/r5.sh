#!/bin/bash
# Device call R5: the pipelined search with the empty-batch fix: GPU tests, and 100,000 queries
# a batch (two chunks of 50,000) against cd2ad50 (prev).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-prev
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
date -u
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 100000 --gt-k 10 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $O ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $?"
for ef in 64; do
  for b in prev new; do B=$N; [ $b = prev ] && B=$O
    timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-$b-$ef.csv > /dev/null 2>&1; done
  cmp /tmp/s-prev-$ef.csv /tmp/s-new-$ef.csv && echo "SEARCH IDENTICAL 100k ef $ef"
done
E=10,32,64,96,128,256
for round in 1 2 3; do for b in prev new; do B=$N; [ $b = prev ] && B=$O
  timeout 60 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 3 --out $OUT/raw/$b-$round > /dev/null 2>&1; echo "$b bench $round rc $?"
done; done
python3 - $OUT <<'PY'
import csv, sys, glob, os
out = sys.argv[1]; rows = {}
for f in sorted(glob.glob(out + '/raw/*/ann.csv')):
    name = os.path.basename(os.path.dirname(f)).rsplit('-', 1)[0]
    for r in csv.DictReader(open(f)):
        d = rows.setdefault(int(r['ef']), {}); d['recall'] = float(r['recall']); d[name] = max(d.get(name, 0), float(r['qps']))
print('100,000 queries a batch, best of 3 rounds x 3 runs'); print('ef recall prev new new/prev')
for ef in sorted(rows):
    v = rows[ef]; print(ef, '%.4f' % v['recall'], '%.0f' % v['prev'], '%.0f' % v['new'], '%.3f' % (v['new'] / v['prev']))
PY
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u
