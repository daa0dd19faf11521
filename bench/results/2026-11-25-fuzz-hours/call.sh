#!/usr/bin/env bash
# Device call: (1) timeouts on every GPU path and the CPU (issue 9: a timeout holds within
# 100 ms plus one kernel); (2) every fuzz target, 2 jobs each, for FUZZ_SECONDS.
# Usage: bash .device-bin/call.sh FUZZ_SECONDS
set -u
secs=$1
B=.device-bin
res=$OUT/res; mkdir -p "$res"
nproc > "$res/nproc.txt"; nvidia-smi -L >> "$res/nproc.txt" 2>&1
{
  $B/subgraph gen graph --model rmat --vertices 1048576 --edges 16777216 --vertex-labels 2 --label-dist uniform --seed 3 --output /tmp/g.sgb 2>&1 | tail -1
  $B/subgraph gen queries /tmp/g.sgb --size 8 --count 3 --kind dense --seed 4 --output /tmp/q 2>&1 | tail -1
  for v in "gpu" "gpu --gpu-dfs off" "gpu --gpu-dfs on" "gpu --gpu-output two-step" "gpu --gpu-dfs-frontier 65536" "cpu"; do
    for mode in count stream; do
      extra=(); [ $mode = stream ] && extra=(--output /dev/null --limit 100000000000)
      s=$(date +%s.%N)
      $B/subgraph match --device $v --timeout 0.3 --format json -q "${extra[@]}" /tmp/g.sgb /tmp/q/*.graph > /tmp/o.json 2>/tmp/e.txt
      e=$(date +%s.%N)
      python3 -c "
import json,sys
rs=[json.loads(l) for l in open('/tmp/o.json')]
print('$v | $mode | wall %.0f ms for %d queries |'%(($e-$s)*1e3,len(rs)), ' '.join('%s:%.0fms:%s:%s'%(r['query'].split('/')[-1],r['elapsed_ms'],r['stopped'],r['embeddings']) for r in rs))"
      tail -2 /tmp/e.txt
    done
  done
} > "$res/timeouts.txt" 2>&1
cd /tmp && tar xzf "$OLDPWD/$B/fuzz.tgz" && cd "$OLDPWD"
/usr/bin/time -f "cpu user %U s, system %S s, wall %e s" -o "$res/cpu.txt" bash /tmp/fuzz/fuzz-run.sh /tmp/fuzz "$secs" 2 /tmp/fuzz-out > "$res/fuzz-run.txt" 2>&1; echo "rc=$?" >> "$res/fuzz-run.txt"
cp /tmp/fuzz-out/summary.txt "$res/"
mkdir -p "$res/crashes"; find /tmp/fuzz-out -path '*artifacts/*' -type f -size -64k -exec cp {} "$res/crashes/" \; 2>/dev/null
tar czf $OUT/results.tgz -C $OUT res
