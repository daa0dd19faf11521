#!/bin/bash
# Device call R3: the descent fused into the search kernel (new) against cd2ad50 (prev); GPU
# tests; GGNN built and run on the same data (kit in .device-bin/ggnn).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-prev
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
for r in cold 1; do for b in prev new; do B=$O; [ $b = new ] && B=$N
  timeout 60 $B ann build $D/base.fvecs --output $D/h-$b.sgi --device gpu > $OUT/raw/build-$b-$r.json 2>/dev/null; echo "$b build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$b-$r.json)"; done; done
cmp $D/h-prev.sgi $D/h-new.sgi && echo "INDEX IDENTICAL" || echo "INDEX DIFFERS"
for ef in 10 64 256 512; do
  for b in prev new; do B=$N; [ $b = prev ] && B=$O
    timeout 60 $B ann search $D/h-prev.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-$b-$ef.csv > /dev/null 2>&1; done
  cmp /tmp/s-prev-$ef.csv /tmp/s-new-$ef.csv && echo "SEARCH IDENTICAL ef $ef"
done
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
for round in 1 2 3 4; do for b in prev new; do B=$N; [ $b = prev ] && B=$O
  timeout 90 $B ann bench $D/h-prev.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --out $OUT/raw/$b-$round > /dev/null 2>&1; echo "$b bench $round rc $?"
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
for b in prev new; do B=$N; [ $b = prev ] && B=$O
  timeout 60 ncu --clock-control none -k regex:ganns_ $B ann search $D/h-prev.sgi $D/query.fvecs --ef 64 --device gpu -o /tmp/x.csv > $OUT/raw/ncu-$b-64.txt 2>&1
  echo "$b ef 64:"; grep -E "^  ganns_|Duration" $OUT/raw/ncu-$b-64.txt | tail -12
done
date -u
# GGNN's build on the host's cores during the GPU tests (not timed), after the benches.
if [ -f .device-bin/ggnn/build.sh ]; then
  (timeout 300 bash .device-bin/ggnn/build.sh > /tmp/ggnn-build.log 2>&1; echo "ggnn build rc $?" >> /tmp/ggnn-build.log) &
  GB=$!
fi
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
timeout 100 .device-bin/ann-gpu-build 2>&1 | grep -E "^test |test result|panicked|recall" | cut -c1-400
date -u; echo "elapsed $SECONDS"
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
if [ -n "${GB:-}" ]; then
  wait $GB; mkdir -p $OUT/ggnn; cp /tmp/ggnn-build.log $OUT/ggnn/build.log 2>/dev/null; tail -8 /tmp/ggnn-build.log
  left=$((575 - SECONDS))
  if [ -f .device-bin/ggnn/run.sh ] && [ $left -gt 90 ]; then
    RUN_BUDGET_S=$((left - 30)) BUILD_RUN_TIMEOUT=$((left - 40 < 200 ? left - 40 : 200)) timeout $((left - 15)) bash .device-bin/ggnn/run.sh $D/base.fvecs $D/query.fvecs $D/gt.ivecs $OUT/ggnn/run 2>&1 | tail -30
  fi
  (cd $OUT && timeout 10 tar czf ggnn.tgz ggnn && rm -rf ggnn)
fi
date -u
