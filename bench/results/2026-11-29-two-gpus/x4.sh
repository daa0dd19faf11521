#!/bin/bash
# Device call X4 (2026-11-29, ninth session) on nvidia-h200-x2: a two-GPU vector search after
# the engine's split of the queries stopped re-checking and copying them on one thread (issue
# 40), against one GPU: 1M x 128, k 10, batches of 10,000 and of 100,000 queries.
set -u
B=$PWD/.device-bin
exec > >(tee -a $OUT/log.txt) 2>&1
export SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u
mkdir -p /tmp/runs /tmp/ann
D=/tmp/ann
timeout 150 $B/subgraph gen vectors --count 1000000 --dim 128 --queries 100000 --gt-k 10 --output $D/base.fvecs --queries-output $D/q100k.fvecs --ground-truth $D/gt100k.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
python3 - <<'PY'
import struct
d = 128
with open('/tmp/ann/q100k.fvecs', 'rb') as f, open('/tmp/ann/q10k.fvecs', 'wb') as o:
    o.write(f.read(10000 * (4 + 4 * d)))
with open('/tmp/ann/gt100k.ivecs', 'rb') as f, open('/tmp/ann/gt10k.ivecs', 'wb') as o:
    o.write(f.read(10000 * (4 + 4 * 10)))
PY
timeout 60 $B/subgraph ann build $D/base.fvecs --output $D/h.sgi --device gpu > /dev/null 2>&1; echo "build rc $?"
E=32,48,64,96,128,256
for n in 10k 100k; do for round in 1 2; do for g in 1 2; do
  timeout 120 $B/subgraph ann bench $D/h.sgi $D/q$n.fvecs --ground-truth $D/gt$n.ivecs --device gpu --gpus $g --efs $E --runs 5 --out /tmp/runs/ann-$n-g$g-r$round > /dev/null 2>&1; echo "bench $n gpus $g round $round rc $?"
done; done; done
for g in 1 2; do timeout 60 $B/subgraph ann search $D/h.sgi $D/q100k.fvecs --ef 64 --device gpu --gpus $g -o /tmp/s$g.csv > /dev/null 2>&1; done
cmp /tmp/s1.csv /tmp/s2.csv && echo "ANSWERS IDENTICAL, one GPU and two (100,000 queries, ef 64)"
python3 - <<'PY'
import csv, glob, os
for n in ('10k', '100k'):
    rows = {}
    for f in sorted(glob.glob(f'/tmp/runs/ann-{n}-g*/ann.csv')):
        tag = os.path.basename(os.path.dirname(f))
        for r in csv.DictReader(open(f)):
            rows.setdefault(int(r['ef']), {})[tag] = (float(r['recall']), float(r['qps']))
    tags = sorted({t for v in rows.values() for t in v})
    print(n, 'queries: ef recall', *tags, 'two/one(best)')
    for ef in sorted(rows):
        v = rows[ef]
        one = max(v[t][1] for t in v if '-g1-' in t); two = max(v[t][1] for t in v if '-g2-' in t)
        print(ef, '%.4f' % next(iter(v.values()))[0], *['%.0f' % v[t][1] for t in tags], '%.3f' % (two / one))
PY
tar czf $OUT/runs.tgz -C /tmp runs; date -u
