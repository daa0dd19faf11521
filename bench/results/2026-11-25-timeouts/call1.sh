#!/usr/bin/env bash
# Device call: timeouts on every path (issue 9: within 100 ms plus one kernel), then the GPU suite.
# Usage: bash .device-bin/call.sh SUITE_QUERIES
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
nproc > "$res/machine.txt"; nvidia-smi -L >> "$res/machine.txt" 2>&1
{
  $B/subgraph gen graph --model rmat --vertices 1048576 --edges 16777216 --vertex-labels 2 --label-dist uniform --seed 3 --output /tmp/g.sgb 2>&1 | tail -1
  $B/subgraph gen queries /tmp/g.sgb --size 8 --count 3 --kind dense --seed 4 --output /tmp/q 2>&1 | tail -1
  for t in 0.3 1.0; do
  for v in "gpu" "gpu --gpu-dfs off" "gpu --gpu-dfs on" "gpu --gpu-output two-step" "gpu --gpu-dfs-frontier 65536" "gpu --gpu-filter host" "cpu" "auto"; do
    for mode in count stream; do
      extra=(); [ $mode = stream ] && extra=(--output /dev/null --limit 100000000000)
      s=$(date +%s.%N)
      $B/subgraph match --device $v --timeout $t --format json -q "${extra[@]}" /tmp/g.sgb /tmp/q/*.graph > /tmp/o.json 2>/tmp/e.txt
      e=$(date +%s.%N)
      python3 -c "
import json,sys
rs=[json.loads(l) for l in open('/tmp/o.json')]
print('t=$t | $v | $mode | wall %.0f ms for %d queries |'%(($e-$s)*1e3,len(rs)), ' '.join('%s:%.0f(+%.0f)ms[f%.0f o%.0f s%.0f e%.0f dfs%s/%s]:%s:%s:%s'%(r['query'].split('_')[-1],r['elapsed_ms'],r['elapsed_ms']-$t*1e3,r['filter_ms'],r['order_ms'],r['space_ms'],r['enumerate_ms'],r.get('gpu_dfs_ms'),r.get('gpu_dfs_launches'),r['stopped'],r['device'],r['embeddings']) for r in rs))"
      grep -v "partial count" /tmp/e.txt | tail -2
    done
  done
  done
} > "$res/timeouts.txt" 2>&1
SUITE_QUERIES=$1 bash scripts/gpu-suite.sh run > /dev/null 2>&1
cp "$OUT/gpu-suite.log" "$res/" 2>/dev/null
tail -1 "$res/gpu-suite.log"
tar czf $OUT/results.tgz -C $OUT res
