#!/usr/bin/env bash
# Device call 7 (nvidia-h200-x2): issue 13 item 1's budgets with --gpus 2: the yeast heavy set
# counted on two GPUs uncapped, then with --gpu-memory at 1/2, 1/4, 1/8 of the uncapped peak
# (above the data graph, as in 2026-11-25-gpu-memory.md), counts against one GPU uncapped;
# and G3 on two GPUs (rows dealt heaviest first) against one, in the same call.
set -u
O=$OUT; R=/tmp/r7; mkdir -p $R
B=.device-bin
{ date; nproc; nvidia-smi -L; } > $R/machine.txt 2>&1
timeout 200 python3 - "$R" "$B" > $R/mem.txt 2>&1 <<'PY'
import json, subprocess, sys, glob
res, B = sys.argv[1], sys.argv[2]
data = f'{B}/sets/yeast/yeast.graph'
qs = sorted(glob.glob(f'{B}/heavy-queries/yeast/*.graph'))
def run(extra):
    o = subprocess.run([f'{B}/subgraph', 'match', '--device', 'gpu', '--timeout', '5', '--format', 'json', '-q'] + extra + [data] + qs, capture_output=True, text=True)
    return [json.loads(l) for l in o.stdout.splitlines() if l.startswith('{')], o.stderr
one, _ = run([])
base, _ = run(['--gpus', '2'])
same1 = sum(g['embeddings'] == b['embeddings'] and g['complete'] == b['complete'] for g, b in zip(base, one))
print('queries', len(base), 'two GPUs uncapped: counts equal to one GPU', same1, 'queries on two GPUs', sum(b.get('gpus', 1) == 2 for b in base))
held = min(b['space_bytes'] for b in base)
peak = max(b['peak_device_bytes'] for b in base)
print('held (graph, about)', held, 'peak max', peak)
for k in (2, 4, 8):
    cap = held + (peak - held) // k
    got, err = run(['--gpus', '2', '--gpu-memory', str(cap)])
    same = sum(g['embeddings'] == b['embeddings'] and g['complete'] == b['complete'] for g, b in zip(got, one))
    on_gpu = sum(g['device'] == 'gpu' for g in got)
    within = all(g.get('peak_device_bytes', 0) <= cap for g in got if g['device'] == 'gpu')
    t_base, t_cap = sum(b['elapsed_ms'] for b in base), sum(g['elapsed_ms'] for g in got)
    print(f'1/{k}: cap {cap}: {same} of {len(base)} counts equal to one GPU uncapped, {on_gpu} on the GPU, peaks within the cap: {within}, elapsed sum {t_cap:.1f} ms (two GPUs uncapped {t_base:.1f})')
    notes = [l for l in err.splitlines() if 'gpu-memory' in l]
    print('  notes:', len(notes), notes[:1])
PY
tar czf $O/call7.tgz -C $R .
for k in 1 2; do
  OUT=$R/g3-$k HEAVY_VARIANTS="gpu gpu2" HEAVY_TIMEOUT=10 timeout 100 bench/gpu-bench.sh g3-variants > $R/g3-$k.txt 2>&1
done
tar czf $O/call7.tgz -C $R .
