#!/bin/bash
# Device call R4: a batch searched in two chunks on two lanes, answers on the download lane
# (new) against cd2ad50 (prev); GPU tests.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-prev
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $O ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build.json 2>/dev/null; echo "build rc $?"
for ef in 10 64 256 512; do
  for b in prev new; do B=$N; [ $b = prev ] && B=$O
    timeout 60 $B ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-$b-$ef.csv > /dev/null 2>&1; done
  cmp /tmp/s-prev-$ef.csv /tmp/s-new-$ef.csv && echo "SEARCH IDENTICAL ef $ef"
done
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
for round in 1 2 3 4; do for b in prev new; do B=$N; [ $b = prev ] && B=$O
  timeout 90 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --out $OUT/raw/$b-$round > /dev/null 2>&1; echo "$b bench $round rc $?"
done; done
date -u
cat > /tmp/summ.py <<'PY'
import csv, sys, glob, os
out, pre, names = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
rows = {}
for f in sorted(glob.glob(out + '/raw/' + pre + '*/ann.csv')):
    name = os.path.basename(os.path.dirname(f))[len(pre):].rsplit('-', 1)[0]
    for r in csv.DictReader(open(f)):
        d = rows.setdefault(int(r['ef']), {})
        d['recall'] = float(r['recall'])
        d[name] = max(d.get(name, 0), float(r['qps']))
print('best of rounds; ratio to', names[0])
print('ef recall', *names)
for ef in sorted(rows):
    v = rows[ef]
    print(ef, '%.4f' % v['recall'], '%.0f' % v[names[0]], *['%.0f(%.3f)' % (v[n], v[n] / v[names[0]]) for n in names[1:] if n in v])
PY
python3 /tmp/summ.py $OUT "" prev,new
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
timeout 100 .device-bin/ann-gpu-build 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u
