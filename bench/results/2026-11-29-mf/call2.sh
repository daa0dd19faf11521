#!/bin/bash
# Device call 2 (issue 41): the engine's GPU tests, then HSGD* against the GPU and the CPU alone
# on a generated Netflix-shaped set (2.5e7 ratings), the GPU slowed by its parallel workers as
# the thesis' Fig. on R1 does, and the split: predicted against measured.
set -u
B=$PWD/.device-bin/subgraph
exec > >(tee -a $OUT/log.txt) 2>&1
date -u
echo "== engine GPU tests"; SUBGRAPH_REQUIRE_GPU=1 timeout 150 .device-bin/mf-gpu-train --test-threads 1 --nocapture 2>&1 | grep -vE "^\s*$" | tail -60
echo "== gen"; timeout 120 $B gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq
D=/tmp/nfq; COMMON="--test $D/test.txt --epochs 10 --lr 0.08 --decay 0.3 --threads 16 --cost-model $OUT/cost.json --format json"
run() { name=$1; shift; timeout ${T:-100} $B mf train $D/train.txt $COMMON "$@" > $OUT/r-$name.jsonl 2>/tmp/err.txt; rc=$?; python3 - $OUT/r-$name.jsonl $name $rc <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
ep=[r for r in rows if 'epoch' in r]; run=[r['run'] for r in rows if 'run' in r]
if not ep: print(sys.argv[2], 'rc', sys.argv[3], 'no epochs'); sys.exit()
per=[(b['elapsed_ms']-a['elapsed_ms']) for a,b in zip(ep,ep[1:])]
per.sort()
r=run[0] if run else {}
print('%-22s rc %s ep1 %7.1f med %7.1f max %7.1f ms/epoch  test %.4f  cpu %.3f  split %s pred %s setup %.0f' % (sys.argv[2], sys.argv[3], ep[0]['elapsed_ms'], per[len(per)//2] if per else -1, per[-1] if per else -1, ep[-1]['test_rmse'] or -1, sum(e['cpu_share'] for e in ep)/len(ep), r.get('split'), r.get('predicted_epoch_ms'), r.get('setup_ms',0)))
PY
tail -1 /tmp/err.txt | grep -i error; }
run cpu16 --device cpu
for w in 64 128 256 512 0; do
  run gpu-w$w --device gpu --workers $w
  run star-w$w --device hybrid --workers $w
  run star-nosteal-w$w --device hybrid --workers $w --no-stealing
  case $w in 128|0) run hsgd-w$w --device hybrid --schedule hsgd --split 0.5 --workers $w; run auto-w$w --device auto --workers $w ;; esac
done
for s in 0.4 0.5 0.6 0.7 0.8; do run split$s-w128 --device hybrid --workers 128 --split $s --no-stealing; done
cp $OUT/cost.json $OUT/cost-profile.json 2>/dev/null
cd $OUT && tar czf runs.tgz r-*.jsonl && rm -f r-*.jsonl
date -u
