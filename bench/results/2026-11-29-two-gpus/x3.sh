#!/bin/bash
# Device call X3 (2026-11-29, ninth session) on nvidia-h200-x2: the rotation with blocks of Q
# passed device to device (issue 41) against one GPU; the half-precision GPU search against
# float at 1M x 128 (issue 40), its GPU tests and the two-GPU ones; where a two-GPU search's
# time goes in the engine (a traced build of X2's probe).
set -u
B=$PWD/.device-bin
exec > >(tee -a $OUT/log.txt) 2>&1
export SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi topo -m 2>&1 | head -4
mkdir -p /tmp/runs /tmp/ann
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
echo "== tests"
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_GPUS=2 timeout 150 $B/mf-gpu-train --test-threads 1 --nocapture two_gpus 2>&1 | grep -E "GPU|test result|panicked|RMSE" | cut -c1-400
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_GPUS=2 timeout 200 $B/ann-gpu --test-threads 1 --skip gist_scale --skip sift_scale 2>&1 | grep -E "^test |test result|panicked" | cut -c1-300
echo "== mf: Netflix shape at 2.5e7 ratings"
timeout 40 $B/subgraph gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq > /dev/null; echo "gen rc $?"
run() { name=$1; D=$2; shift 2; local t0=$(date +%s); timeout ${T:-60} $B/subgraph mf train $D/train.txt --test $D/test.txt --threads 16 --format json --lr 0.08 --decay 0.3 "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; echo "[$name rc $? wall $(( $(date +%s)-t0 )) s]"; python3 $B/summ.py /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
for rep in 1 2; do
  run q-gpu1-$rep /tmp/nfq --epochs 20 --device gpu --gpus 1
  run q-gpu2-$rep /tmp/nfq --epochs 20 --device gpu --gpus 2
done
run q-gpu1-half /tmp/nfq --epochs 20 --device gpu --gpus 1 --half
run q-gpu2-half /tmp/nfq --epochs 20 --device gpu --gpus 2 --half
pack; rm -rf /tmp/nfq
echo "== mf: the full Netflix shape"
timeout 90 $B/subgraph gen ratings --preset netflix --seed 0 --output /tmp/nf > /dev/null; echo "gen rc $?"
run f-gpu1 /tmp/nf --epochs 8 --device gpu --gpus 1
run f-gpu2 /tmp/nf --epochs 8 --device gpu --gpus 2
run f-gpu1-half /tmp/nf --epochs 8 --device gpu --gpus 1 --half
run f-gpu2-half /tmp/nf --epochs 8 --device gpu --gpus 2 --half
pack; rm -rf /tmp/nf
echo "== ann: float against half, 1M x 128, k 10, 10,000 queries"
D=/tmp/ann
timeout 150 $B/subgraph gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $B/subgraph ann build $D/base.fvecs --output $D/h.sgi --device gpu > /dev/null 2>&1; echo "build rc $?"
for h in "" --half; do timeout 60 $B/subgraph ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu $h --ground-truth $D/gt.ivecs -o /tmp/s$h.csv 2>&1 | tail -1; done
E=16,24,32,48,64,96,128,192,256
for round in 1 2; do for h in f32 half; do
  H=""; [ $h = half ] && H=--half
  timeout 90 $B/subgraph ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu $H --efs $E --runs 10 --out /tmp/runs/ann-$h-r$round > /dev/null 2>&1; echo "bench $h round $round rc $?"
done; done
timeout 90 $B/subgraph ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --gpus 2 --half --efs $E --runs 10 --out /tmp/runs/ann-half-gpus2 > /dev/null 2>&1; echo "bench half gpus 2 rc $?"
python3 - <<'PY'
import csv, glob, os
rows = {}
for f in sorted(glob.glob('/tmp/runs/ann-*/ann.csv')):
    tag = os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(open(f)):
        rows.setdefault(int(r['ef']), {})[tag] = (float(r['recall']), float(r['qps']))
tags = sorted({t for v in rows.values() for t in v})
print('ef', *tags, 'half/f32(best)')
for ef in sorted(rows):
    v = rows[ef]
    f = max(v[t][1] for t in v if t.startswith('ann-f32')); h = max(v[t][1] for t in v if t.startswith('ann-half-r'))
    print(ef, *['%.4f/%.0f' % v[t] if t in v else '-' for t in tags], '%.3f' % (h / f))
PY
echo "== ann: a two-GPU search in the engine, traced (ef 64)"
timeout 60 $B/probe-trace $D/h.sgi $D/query.fvecs 64 2>&1 | grep -v "^round" | tail -40
pack; date -u
