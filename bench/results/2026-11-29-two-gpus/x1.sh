#!/bin/bash
# Device call X1 (2026-11-29, ninth session) on nvidia-h200-x2: the `--gpus 2` paths of issue 41
# (matrix factorisation), issue 40 (vector search) and issue 43 (the server), each checked
# against one GPU in the same lease. Run from the repository root with .device-bin carried.
set -u
B=$PWD/.device-bin
exec > >(tee -a $OUT/log.txt) 2>&1
export SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nproc; nvidia-smi --query-gpu=index,name,memory.used,memory.total --format=csv
mkdir -p /tmp/runs /tmp/ann
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
echo "== tests"
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_GPUS=2 timeout 150 $B/mf-gpu-train --test-threads 1 --nocapture two_gpus more_gpus 2>&1 | grep -E "device:|train and|GPU|test result|panicked|failures|RMSE" | cut -c1-400
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_GPUS=2 timeout 90 $B/ann-gpu --test-threads 1 --nocapture two_gpus 2>&1 | tail -4
echo "== server"
SUBGRAPH_REQUIRE_GPU=1 timeout 200 $B/server-tests gpu_ --test-threads 1 2>&1 | grep -E "^test |test result|panicked" | cut -c1-300
timeout 150 python3 $B/server-gpu-check.py $B/subgraph tests/data/hprd/HPRD.graph 2>&1 | tail -25
echo "== mf: Netflix shape at 2.5e7 ratings"
timeout 40 $B/subgraph gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq > /dev/null; echo "gen rc $?"
run() { name=$1; shift; local t0=$(date +%s); timeout ${T:-60} $B/subgraph mf train /tmp/nfq/train.txt --test /tmp/nfq/test.txt --threads 16 --cost-model /tmp/cost.json --format json --epochs 8 --lr 0.08 --decay 0.3 "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; echo "[$name rc $? wall $(( $(date +%s)-t0 )) s]"; python3 $B/summ.py /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
for w in 0 128; do
  W=""; [ $w -gt 0 ] && W="--workers $w"
  run gpu1-w$w --device gpu --gpus 1 $W
  run gpu2-w$w --device gpu --gpus 2 $W
  run hyb1-w$w --device hybrid --gpus 1 $W
  run hyb2-w$w --device hybrid --gpus 2 $W
  run auto2-w$w --device auto --gpus 2 $W
done
run gpu2-half --device gpu --gpus 2 --half
run gpu1-half --device gpu --gpus 1 --half
pack
echo "== ann: 1M x 128, k 10, 10,000 queries"
D=/tmp/ann
timeout 150 $B/subgraph gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $B/subgraph ann build $D/base.fvecs --output $D/h.sgi --device gpu 2>&1 | tail -2
for g in 1 2; do timeout 60 $B/subgraph ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu --gpus $g -o /tmp/s$g.csv --ground-truth $D/gt.ivecs 2>&1 | tail -2; done
cmp /tmp/s1.csv /tmp/s2.csv && echo "ANSWERS IDENTICAL, one GPU and two"
for round in 1 2; do for g in 1 2; do
  timeout 90 $B/subgraph ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --gpus $g --efs 32,48,64,96,128,256 --runs 10 --out /tmp/runs/ann-g$g-r$round > /dev/null 2>&1; echo "ann bench gpus $g round $round rc $?"
done; done
python3 - <<'PY'
import csv, glob, os
rows = {}
for f in sorted(glob.glob('/tmp/runs/ann-g*/ann.csv')):
    tag = os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(open(f)):
        rows.setdefault(int(r['ef']), {})[tag] = (float(r['recall']), float(r['qps']))
tags = sorted({t for v in rows.values() for t in v})
print('ef recall', *tags, 'two/one(best)')
for ef in sorted(rows):
    v = rows[ef]
    one = max(v[t][1] for t in v if t.startswith('ann-g1')); two = max(v[t][1] for t in v if t.startswith('ann-g2'))
    print(ef, '%.4f' % next(iter(v.values()))[0], *['%.0f' % v[t][1] if t in v else '-' for t in tags], '%.3f' % (two / one))
PY
pack; date -u
