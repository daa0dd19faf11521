#!/bin/bash
# Device call E3: the GPU search's queries and answers through page-locked staging (new)
# against E2's binary (subgraph-e2), same index; answers compared; GPU tests.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-e2
D=/tmp/ann/g128; mkdir -p $D $OUT/new $OUT/e2
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $O ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/build.json 2>/dev/null; echo "build rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/build.json)"
for ef in 64 256; do
  for b in e2 new; do B=$O; [ $b = new ] && B=$N
    timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-$b-$ef.csv 2>&1 | tail -1 | cut -c1-250; done
  cmp /tmp/s-e2-$ef.csv /tmp/s-new-$ef.csv && echo "SEARCH IDENTICAL ef $ef"
done
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
for round in 1 2 3; do for b in e2 new; do B=$O; [ $b = new ] && B=$N
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
print('ef recall', *tags, 'new/e2(best)')
for ef in sorted(rows):
    v = rows[ef]
    o = max(v[t][1] for t in v if t.startswith('e2')); n = max(v[t][1] for t in v if t.startswith('new'))
    print(ef, '%.4f' % next(iter(v.values()))[0], *['%.0f' % v[t][1] if t in v else '-' for t in tags], '%.3f' % (n / o))
PY
(cd $OUT && tar czf e3.tgz e2 new build.json && rm -rf e2 new build.json)
date -u
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
date -u
