#!/bin/bash
# Device call P3: half-precision rows (--precision half) against single, and main (127ae40).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-main
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
for r in cold 1; do timeout 60 $N ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build-$r.json 2>/dev/null; echo "build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$r.json)"; done
for ef in 10 64 256; do
  timeout 60 $O ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-old-$ef.csv > /dev/null 2>&1
  timeout 60 $N ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-new-$ef.csv > /dev/null 2>&1
  cmp /tmp/s-old-$ef.csv /tmp/s-new-$ef.csv && echo "SEARCH IDENTICAL single ef $ef"
  timeout 60 $N ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision half --ground-truth $D/gt.ivecs -o /tmp/s-half-$ef.csv > $OUT/raw/half-search-$ef.json 2>&1; echo "half ef $ef rc $? $(cat $OUT/raw/half-search-$ef.json | tail -1)"
done
python3 - <<'PY'
import csv
def load(p):
    d={}
    for r in csv.DictReader(open(p)): d[(r['query'],r['id'])]=r['distance']
    return d
s,h=load('/tmp/s-new-256.csv'),load('/tmp/s-half-256.csv')
common=[k for k in h if k in s]; same=sum(1 for k in common if s[k]==h[k])
print(f"ef 256: half answers {len(h)}, shared with single {len(common)}, same distance text {same}")
PY
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
V="old:O::single new:N::single half:N::half half8:N:8:half"
for round in 1 2 3; do for v in $V; do IFS=: read name b rows prec <<< "$v"; B=$N; [ $b = O ] && B=$O; P="--precision $prec"; [ $b = O ] && P=
  SUBGRAPH_ANN_ROWS=$rows timeout 90 $B ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 $P --out $OUT/raw/$name-$round > /dev/null 2>&1; echo "$name bench $round rc $?"
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
        d.setdefault('recall', {})[name] = float(r['recall'])
        d[name] = max(d.get(name, 0), float(r['qps']))
print('best of rounds; ratio to', names[0])
print('ef', *[n + '(recall qps ratio)' for n in names])
for ef in sorted(rows):
    v = rows[ef]
    print(ef, *['%s:%.4f %.0f %.3f' % (n, v['recall'][n], v[n], v[n] / v[names[0]]) for n in names if n in v])
PY
python3 /tmp/summ.py $OUT "" old,new,half,half8
for p in single half; do
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats -k regex:ganns_search -c 2 $N ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu --precision $p -o /tmp/x.csv > $OUT/raw/ncu-$p-64.txt 2>&1
  echo "$p ef 64:"; awk '/ganns_search \([0-9]+, 1, 1\)x\(128/{f++} f==2' $OUT/raw/ncu-$p-64.txt | grep -E "Duration|Achieved Occupancy|DRAM Throughput|L2 Cache Throughput|Stall Long|Eligible Warps|Block Limit Registers" | head -8
done
date -u
timeout 200 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked|recall@10 at ef 32" | cut -c1-300
timeout 100 .device-bin/ann-gpu-build 2>&1 | grep -E "^test |test result|panicked" | cut -c1-300
date -u; echo "elapsed $SECONDS"
if [ $SECONDS -lt 430 ]; then
  G=/tmp/ann/g960; mkdir -p $G
  timeout 90 $N gen vectors --count 1000000 --dim 960 --queries 10000 --gt-k 100 \
    --output $G/base.fvecs --queries-output $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen960 rc $?"
  timeout 50 $N ann build $G/base.fvecs --output $G/h.sgi --device gpu > $OUT/raw/build960.json 2>/dev/null; echo "build960 rc $?"
  for round in 1 2; do for p in single half; do
    timeout 40 $N ann bench $G/h.sgi $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu --efs 10,32,64,128,256,512 --runs 5 --precision $p --out $OUT/raw/g960-$p-$round > /dev/null 2>&1; echo "960 $p bench $round rc $?"; done; done
  python3 /tmp/summ.py $OUT g960- single,half
fi
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u
