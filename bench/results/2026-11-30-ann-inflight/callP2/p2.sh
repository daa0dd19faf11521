#!/bin/bash
# Device call P2: every row's loads in flight before any is used (lane_partials) against main (127ae40).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-main
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
for r in cold 1 2; do for b in old new; do B=$O; [ $b = new ] && B=$N
  timeout 60 $B ann build $D/base.fvecs --output $D/h-$b.sgi --device gpu > $OUT/raw/build-$b-$r.json 2>/dev/null; echo "$b build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$b-$r.json)"; done; done
cmp $D/h-old.sgi $D/h-new.sgi && echo "INDEX IDENTICAL" || echo "INDEX DIFFERS"
for ef in 10 64 256 512; do
  for b in old new r16 r4; do B=$N; [ $b = old ] && B=$O; R=; M=; [ $b = r16 ] && R=16 M=6; [ $b = r4 ] && R=4
    SUBGRAPH_ANN_ROWS=$R SUBGRAPH_ANN_MIN_BLOCKS=$M timeout 60 $B ann search $D/h-old.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-$b-$ef.csv > /dev/null 2>&1; done
  for b in new r16 r4; do cmp /tmp/s-old-$ef.csv /tmp/s-$b-$ef.csv && echo "SEARCH IDENTICAL $b ef $ef"; done
done
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
V="old:O:: new:N:: r16mb6:N:16:6 r4:N:4: r16:N:16: mb6:N::6"
for round in 1 2 3; do for v in $V; do IFS=: read name b rows mb <<< "$v"; B=$N; [ $b = O ] && B=$O
  SUBGRAPH_ANN_ROWS=$rows SUBGRAPH_ANN_MIN_BLOCKS=$mb timeout 90 $B ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --out $OUT/raw/$name-$round > /dev/null 2>&1; echo "$name bench $round rc $?"
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
python3 /tmp/summ.py $OUT "" old,new,r16mb6,r4,r16,mb6
echo "--- ptxas"
for f in /tmp/ptx/*; do if grep -q "ganns_search" $f 2>/dev/null; then echo "$(basename $f) $(grep -o 'minnctapersm [0-9]*' $f | head -1): $(timeout 60 ptxas -arch=sm_90 -v $f -o /dev/null 2>&1 | grep -A1 "entry function 'ganns_search'" | grep -o 'Used [0-9]* registers' ) $(timeout 60 ptxas -arch=sm_90 -v $f -o /dev/null 2>&1 | grep -A1 "entry function 'ganns_search'" | grep -o '[0-9]* bytes spill stores')"; fi; done 2>&1 | head -20
for b in old new; do B=$O; [ $b = new ] && B=$N
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats -k regex:ganns_search -c 2 $B ann search $D/h-old.sgi $D/query.fvecs --ef 64 --device gpu -o /tmp/x.csv > $OUT/raw/ncu-$b-64.txt 2>&1
  echo "$b ef 64:"; awk '/ganns_search \([0-9]+, 1, 1\)x\(128/{f++} f==2' $OUT/raw/ncu-$b-64.txt | grep -E "Duration|Achieved Occupancy|DRAM Throughput|Stall Long|Eligible Warps|Issue Slots Busy|Registers" | head -8
done
date -u
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
timeout 100 .device-bin/ann-gpu-build 2>&1 | grep -E "^test |test result|panicked|recall" | cut -c1-400
date -u; echo "elapsed $SECONDS"
if [ $SECONDS -lt 400 ]; then
  G=/tmp/ann/g960; mkdir -p $G
  timeout 90 $N gen vectors --count 1000000 --dim 960 --queries 10000 --gt-k 100 \
    --output $G/base.fvecs --queries-output $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen960 rc $?"; date -u
  for b in old new; do B=$O; [ $b = new ] && B=$N
    timeout 50 $B ann build $G/base.fvecs --output $G/h-$b.sgi --device gpu > $OUT/raw/build960-$b.json 2>/dev/null; echo "$b build960 rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build960-$b.json)"; done
  cmp $G/h-old.sgi $G/h-new.sgi && echo "INDEX960 IDENTICAL" || echo "INDEX960 DIFFERS"
  for round in 1 2; do for b in old new; do B=$O; [ $b = new ] && B=$N
    timeout 40 $B ann bench $G/h-old.sgi $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu --efs 10,32,64,128,256,512 --runs 5 --out $OUT/raw/g960-$b-$round > /dev/null 2>&1; echo "960 $b bench $round rc $?"; done; done
  python3 /tmp/summ.py $OUT g960- old,new
fi
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u
