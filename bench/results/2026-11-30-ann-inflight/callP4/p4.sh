#!/bin/bash
# Device call P4: reading the next candidate's row ahead (ADJ_AHEAD), on and off (SUBGRAPH_ANN_AHEAD=0), single and half, against main (127ae40).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-main
D=/tmp/ann/g128; mkdir -p $D $OUT/raw
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
for r in cold 1; do timeout 60 $N ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/raw/build-$r.json 2>/dev/null; echo "build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/raw/build-$r.json)"; done
timeout 60 $O ann build $D/base.fvecs --output $D/h-old.sgi --device gpu > /dev/null 2>&1; cmp $D/h.sgi $D/h-old.sgi && echo "INDEX IDENTICAL"
for ef in 10 64 256; do
  timeout 60 $O ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu -o /tmp/s-old-$ef.csv > /dev/null 2>&1
  for p in single half; do
    timeout 60 $N ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision $p -o /tmp/s-$p-$ef.csv > /dev/null 2>&1
    SUBGRAPH_ANN_AHEAD=0 timeout 60 $N ann search $D/h.sgi $D/query.fvecs --ef $ef --device gpu --precision $p -o /tmp/s-$p-noahead-$ef.csv > /dev/null 2>&1
    cmp /tmp/s-$p-$ef.csv /tmp/s-$p-noahead-$ef.csv && echo "SEARCH IDENTICAL $p ahead/noahead ef $ef"
  done
  cmp /tmp/s-old-$ef.csv /tmp/s-single-$ef.csv && echo "SEARCH IDENTICAL single/main ef $ef"
done
date -u
E=10,16,24,32,48,64,96,128,192,256,384,512
V="noahead:0:single ahead::single noahead-half:0:half ahead-half::half"
for round in 1 2 3; do for v in $V; do IFS=: read name a prec <<< "$v"
  SUBGRAPH_ANN_AHEAD=$a timeout 90 $N ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --runs 10 --precision $prec --out $OUT/raw/$name-$round > /dev/null 2>&1; echo "$name bench $round rc $?"
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
        d.setdefault('all', {}).setdefault(name, []).append(float(r['qps']))
        d[name] = max(d.get(name, 0), float(r['qps']))
print('best of rounds; ratio to', names[0], '; rounds min-max')
for ef in sorted(rows):
    v = rows[ef]
    print(ef, *['%s:%.4f %.0f %.3f [%.2f-%.2fM]' % (n, v['recall'][n], v[n], v[n] / v[names[0]], min(v['all'][n])/1e6, max(v['all'][n])/1e6) for n in names if n in v])
PY
python3 /tmp/summ.py $OUT "" noahead,ahead,noahead-half,ahead-half
for a in 0 1; do
  SUBGRAPH_ANN_AHEAD=$a timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats -k regex:ganns_search -c 2 $N ann search $D/h.sgi $D/query.fvecs --ef 64 --device gpu -o /tmp/x.csv > $OUT/raw/ncu-ahead$a-64.txt 2>&1
  echo "ahead $a ef 64:"; awk '/ganns_search \([0-9]+, 1, 1\)x\(128/{f++} f==2' $OUT/raw/ncu-ahead$a-64.txt | grep -E "Duration|Achieved Occupancy|DRAM Throughput|Stall Long|Eligible Warps|Block Limit Registers" | head -8
done
date -u
timeout 200 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-300
timeout 100 .device-bin/ann-gpu-build 2>&1 | grep -E "^test |test result|panicked" | cut -c1-300
(cd $OUT && tar czf raw.tgz raw && rm -rf raw)
date -u; echo "elapsed $SECONDS"
