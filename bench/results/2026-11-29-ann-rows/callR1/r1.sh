#!/bin/bash
# Device call R1: rows a warp computes at once (ROWS, warp_totals) against subgraph-old.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-old
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"; date -u
for r in cold 1 2; do for b in old new; do B=$O; [ $b = new ] && B=$N
  timeout 60 $B ann build $D/base.fvecs --output $D/h-$b.sgi --device gpu > $OUT/raw/build-$b-$r.json 2>/dev/null; echo "$b build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$b-$r.json)"; done; done
cmp $D/h-old.sgi $D/h-new.sgi && echo "INDEX IDENTICAL" || echo "INDEX DIFFERS"
for ef in 10 64 256 512; do
  for b in old new r16 r4; do B=$N; [ $b = old ] && B=$O
    R=; case $b in r16) R=16;; r4) R=4;; esac
    SUBGRAPH_ANN_ROWS=$R timeout 60 $B ann search $D/h-old.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-$b-$ef.csv > /dev/null 2>&1; done
  for b in new r16 r4; do cmp /tmp/s-old-$ef.csv /tmp/s-$b-$ef.csv && echo "SEARCH IDENTICAL $b ef $ef"; done
done
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
# variant: name binary ROWS MIN_BLOCKS
V="old:O:: new:N:: r16:N:16: r4:N:4: r16mb6:N:16:6 r16mb4:N:16:4 r8mb6:N:8:6"
for round in 1 2 3; do for v in $V; do IFS=: read name b rows mb <<< "$v"; B=$N; [ $b = O ] && B=$O
  SUBGRAPH_ANN_ROWS=$rows SUBGRAPH_ANN_MIN_BLOCKS=$mb timeout 90 $B ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --out $OUT/raw/$name-$round > /dev/null 2>&1; echo "$name bench $round rc $?"
done; done
date -u
python3 - $OUT <<'PY'
import csv, sys, glob, os
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(out + '/raw/*/ann.csv')):
    tag = os.path.basename(os.path.dirname(f))
    name = tag.rsplit('-', 1)[0]
    for r in csv.DictReader(open(f)):
        d = rows.setdefault(int(r['ef']), {})
        d['recall'] = float(r['recall'])
        d[name] = max(d.get(name, 0), float(r['qps']))
names = ['old', 'new', 'r16', 'r4', 'r16mb6', 'r16mb4', 'r8mb6']
print('best of 3 rounds x 10 runs; ratio to old')
print('ef recall', *names)
for ef in sorted(rows):
    v = rows[ef]
    print(ef, '%.4f' % v['recall'], '%.0f' % v['old'], *['%.0f(%.3f)' % (v[n], v[n] / v['old']) for n in names[1:] if n in v])
PY
echo "--- ptxas"
for f in /tmp/ptx/*; do if grep -q "ganns_search" $f 2>/dev/null; then echo "$f: $(grep -o 'ROWS\|maxnreg\|minnctapersm [0-9]*' $f | sort -u | tr '\n' ' ')"; timeout 60 ptxas -arch=sm_90 -v $f -o /dev/null 2>&1 | grep -A1 "ganns_search'" | grep -o "Used [0-9]* registers.*\|[0-9]* bytes spill stores.*" ; fi; done 2>&1 | head -40
date -u
for b in old new; do B=$O; [ $b = new ] && B=$N
  for ef in 64 256; do
    timeout 60 ncu --clock-control none --print-summary per-kernel -k regex:ganns_search $B ann search $D/h-old.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/x.csv > $OUT/raw/ncu-$b-$ef.txt 2>&1
    echo "$b ef $ef: $(grep -v PROF $OUT/raw/ncu-$b-$ef.txt | awk '/ganns_search \(2500/{f=1} f && /Duration/{print $3, $4, $5, $6; exit}')"
  done
done
date -u
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
timeout 120 .device-bin/ann-gpu-build 2>&1 | grep -E "^test |test result|panicked|recall" | cut -c1-400
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u
