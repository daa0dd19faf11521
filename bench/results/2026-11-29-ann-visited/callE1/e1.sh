#!/bin/bash
# Device call E1 (2026-11-29, seventh session): the visited set and four-row greedy descent in
# the GANNS kernels, against the binary before them (subgraph-old, same ANN code as 5b98813):
# identical graphs and answers, QPS at each ef, build time; HS variants; GPU tests; the MF
# planted-RMSE test rerun unfiltered.
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
N=$PWD/.device-bin/subgraph; O=$PWD/.device-bin/subgraph-old
D=/tmp/ann/g128; mkdir -p $D $OUT/new $OUT/old
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
timeout 120 $N gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 \
  --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > $OUT/gen.log 2>&1; echo "gen rc $?"; date -u
for b in old new; do B=$O; [ $b = new ] && B=$N
  for r in cold 1 2; do timeout 60 $B ann build $D/base.fvecs --output $D/h-$b.sgi --device gpu > $OUT/$b/build-$r.json 2>$OUT/$b/build-$r.err; echo "$b build $r rc $? $(grep -o '"build_seconds":[0-9.]*' $OUT/$b/build-$r.json)"; done
done
cmp $D/h-old.sgi $D/h-new.sgi && echo "INDEX IDENTICAL" || echo "INDEX DIFFERS"
for combo in old:old new:old new:new; do b=${combo%%:*}; i=${combo##*:}; B=$O; [ $b = new ] && B=$N
  timeout 60 $B ann search $D/h-$i.sgi $D/query.fvecs --ef 64 --device gpu -o /tmp/s-$b-$i.csv --ground-truth $D/gt.ivecs 2>&1 | tail -1 | cut -c1-300
done
cmp /tmp/s-old-old.csv /tmp/s-new-old.csv && echo "SEARCH IDENTICAL on old index"; cmp /tmp/s-old-old.csv /tmp/s-new-new.csv && echo "SEARCH IDENTICAL across builds"
date -u
E=10,16,24,32,48,64,96,128,192,256,512
for round in 1 2; do
  timeout 90 $O ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --out $OUT/old/bench$round > /dev/null 2>&1; echo "old bench rc $?"
  timeout 90 $N ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --out $OUT/new/bench$round > /dev/null 2>&1; echo "new bench rc $?"
done
for hs in 512 2048 4096; do
  SUBGRAPH_ANN_VISITED=$hs timeout 90 $N ann bench $D/h-old.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --efs $E --out $OUT/new/hs$hs > /dev/null 2>&1; echo "hs $hs rc $?"
done
python3 - $OUT <<'PY'
import csv, sys, glob, os
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(out + '/*/*/ann.csv')):
    tag = os.path.relpath(os.path.dirname(f), out)
    for r in csv.DictReader(open(f)):
        rows.setdefault(int(r['ef']), {})[tag] = (float(r['recall']), float(r['qps']))
tags = sorted({t for v in rows.values() for t in v})
print('ef', *tags)
for ef in sorted(rows):
    print(ef, *['%.4f/%.0f' % rows[ef][t] if t in rows[ef] else '-' for t in tags])
PY
date -u
timeout 60 ncu --clock-control none --print-summary per-kernel -k regex:ganns $N ann search $D/h-old.sgi $D/query.fvecs --ef 64 --device gpu -o /tmp/x.csv > $OUT/ncu-new.txt 2>&1; echo "ncu rc $?"; grep -E "ganns|Duration" $OUT/ncu-new.txt | head -12
(cd $OUT && tar czf e1.tgz old new gen.log ncu-new.txt && rm -rf old new gen.log ncu-new.txt)
date -u
timeout 150 .device-bin/ann-gpu --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | cut -c1-400
timeout 120 .device-bin/ann-gpu-build 2>&1 | grep -E "^test |test result|panicked|recall" | cut -c1-400
date -u
timeout 100 .device-bin/mf-gpu-train --test-threads 1 --nocapture hsgd_star_and_hsgd 2>&1 | tail -30
date -u
