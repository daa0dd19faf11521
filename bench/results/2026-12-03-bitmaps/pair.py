#!/usr/bin/env python3
"""Pairs JSON-lines reports of --bitmaps off and auto: python3 pair.py OFF.jsonl AUTO.jsonl
[OFF2 AUTO2 ...]. Per query the least elapsed_ms of each side (a query stopped by its timeout
is compared by its rate, embeddings a millisecond, and marked *), the ratio off/auto, the
geometric mean, the worst five, and any count that differs between complete runs. With
--names A,B first, the two sides are printed as A and B (two binaries, say)."""
import json, math, sys

def load(paths):
    best = {}
    for p in paths:
        for line in open(p):
            r = json.loads(line)
            if 'embeddings' not in r:
                continue
            q = r['query'].split('/')[-1]
            rate = r['embeddings'] / max(r['elapsed_ms'], 1e-9)
            cur = best.get(q)
            key = (r['complete'], -r['elapsed_ms'] if r['complete'] else rate)
            if cur is None or key > cur[0]:
                best[q] = (key, r)
    return {q: v[1] for q, v in best.items()}

args = sys.argv[1:]
names = ('off', 'auto')
if args and args[0] == '--names':
    names = tuple(args[1].split(','))
    args = args[2:]
off, auto = load(args[0::2]), load(args[1::2])
ratios, rows, differ = [], [], []
for q in sorted(off, key=lambda s: [int(t) if t.isdigit() else t for t in s.replace('.', '_').split('_')]):
    if q not in auto:
        continue
    a, b = off[q], auto[q]
    if a['complete'] and b['complete']:
        if a['embeddings'] != b['embeddings']:
            differ.append(q)
        ratio, mark = a['elapsed_ms'] / b['elapsed_ms'], ''
    else:
        ratio = (b['embeddings'] / b['elapsed_ms']) / max(a['embeddings'] / a['elapsed_ms'], 1e-9) if a['complete'] == b['complete'] else (
            float('inf') if b['complete'] else 0.0)
        mark = '*'
    ratios.append(ratio)
    rows.append((q, a['elapsed_ms'], b['elapsed_ms'], ratio, mark, b.get('bitmaps'), a['embeddings'], b['embeddings']))
for q, x, y, r, mark, bm, ea, eb in rows:
    print(f"{q:28s} {names[0]} {x:10.1f} ms  {names[1]} {y:10.1f} ms  {r:6.2f}x{mark}  bitmaps {bm}  ({ea} / {eb})")
fin = [r for r in ratios if 0 < r < float('inf')]
if fin:
    print(f"geomean {math.exp(sum(map(math.log, fin)) / len(fin)):.3f} over {len(fin)}; worst {sorted(fin)[:5]}")
print("counts differ:", differ or "none")
