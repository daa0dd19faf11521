#!/bin/bash
# Device call E7: the id mapping (internal ids to the caller's) on every core (new) against
# E3's binary (one core), same index; answers compared.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-e3
D=/tmp/ann/g128; mkdir -p $D $OUT/new $OUT/e3
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
[ -s $D/gt.ivecs ] || timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
[ -s $D/h.sgi ] || timeout 60 $O ann build $D/base.fvecs --output $D/h.sgi --device gpu > /dev/null 2>&1; echo "build rc $?"
for b in e3 new; do B=$O; [ $b = new ] && B=$N
  timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu -o /tmp/s-$b.csv > /dev/null 2>&1; done
cmp /tmp/s-e3.csv /tmp/s-new.csv && echo "SEARCH IDENTICAL ef 64"
E=10,16,24,32,48,64,96,128,192,256,384,512
for round in 1 2 3; do for b in e3 new; do B=$O; [ $b = new ] && B=$N
  timeout 90 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --out $OUT/$b/bench$round > /dev/null 2>&1; echo "$b bench $round rc $?"
done; done
python3 - $OUT <<'PY'
import csv, sys, glob, os
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(out + '/*/*/ann.csv')):
    tag = os.path.relpath(os.path.dirname(f), out)
    for r in csv.DictReader(open(f)):
        rows.setdefault(int(r['ef']), {})[tag] = (float(r['recall']), float(r['qps']))
tags = sorted({t for v in rows.values() for t in v})
print('ef recall', *tags, 'new/e3(best)')
for ef in sorted(rows):
    v = rows[ef]
    o = max(v[t][1] for t in v if t.startswith('e3')); n = max(v[t][1] for t in v if t.startswith('new'))
    print(ef, '%.4f' % next(iter(v.values()))[0], *['%.0f' % v[t][1] if t in v else '-' for t in tags], '%.3f' % (n / o))
PY
(cd $OUT && tar czf e7.tgz e3 new && rm -rf e3 new)
date -u
