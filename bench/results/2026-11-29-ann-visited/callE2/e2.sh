#!/bin/bash
# Device call E2: the visited set sized by shared memory (none beside N of 512 or more), the
# four-row descent, the bench's query copy out of the timed region; against subgraph-old.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-old
D=/tmp/ann/g128; mkdir -p $D $OUT/new $OUT/old
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"; date -u
for r in cold 1 2 3 4; do for b in old new; do B=$O; [ $b = new ] && B=$N
  timeout 60 $B ann build $D/base.fvecs --output $D/h-$b.sgi --device gpu > $OUT/$b/build-$r.json 2>/dev/null; echo "$b build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/$b/build-$r.json)"; done; done
cmp $D/h-old.sgi $D/h-new.sgi && echo "INDEX IDENTICAL" || echo "INDEX DIFFERS"
for ef in 64 256 512; do
  for b in old new; do B=$O; [ $b = new ] && B=$N
    timeout 60 $B ann search $D/h-old.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-$b-$ef.csv > /dev/null 2>&1; done
  cmp /tmp/s-old-$ef.csv /tmp/s-new-$ef.csv && echo "SEARCH IDENTICAL ef $ef"
done
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
for round in 1 2 3; do for b in old new; do B=$O; [ $b = new ] && B=$N
  timeout 90 $B ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --out $OUT/$b/bench$round > /dev/null 2>&1; echo "$b bench $round rc $?"
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
print('ef recall', *tags, 'new/old(best)')
for ef in sorted(rows):
    v = rows[ef]
    o = max(v[t][1] for t in v if t.startswith('old')); n = max(v[t][1] for t in v if t.startswith('new'))
    print(ef, '%.4f' % next(iter(v.values()))[0], *['%.0f' % v[t][1] if t in v else '-' for t in tags], '%.3f' % (n / o))
PY
date -u
for b in old new; do B=$O; [ $b = new ] && B=$N
  for ef in 64 128 256; do
    timeout 60 ncu --clock-control none --print-summary per-kernel -k regex:ganns_search $B ann search $D/h-old.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/x.csv > $OUT/$b/ncu-$ef.txt 2>&1
    echo "$b ef $ef: $(grep -v PROF $OUT/$b/ncu-$ef.txt | awk '/ganns_search \(2500/{f=1} f && /Duration/{print $3, $4, $5, $6; exit}')"
  done
done
(cd $OUT && tar czf e2.tgz old new && rm -rf old new)
date -u
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
timeout 120 .device-bin/ann-gpu-build 2>&1 | grep -E "^test |test result|panicked|recall" | cut -c1-400
date -u
