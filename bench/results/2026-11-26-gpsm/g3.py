"""G3 per query and class medians of three runs per variant: python3 g3.py DIR VARIANT...
(DIR holds g3-1/, g3-2/, g3-3/, each with g3h-<variant>.jsonl from bench/gpu-bench.sh
g3-variants)."""
import json
import statistics
import sys
from pathlib import Path

d, variants = Path(sys.argv[1]), sys.argv[2:]
runs = {}
for v in variants:
    for i in (1, 2, 3):
        for line in open(d / f"g3-{i}" / f"g3h-{v}.jsonl"):
            r = json.loads(line)
            runs.setdefault((Path(r["query"]).stem, v), []).append(r)
key = lambda q: (q.split("_")[0], int(q.split("_")[1]), int(q.split("_")[2]))
queries = sorted({q for q, _ in runs}, key=key)
print("| query | embeddings | equal | " + " | ".join(f"{v} ms" for v in variants) + f" | {variants[0]} read |")
print("|---|---:|---|" + "---:|" * len(variants) + "---|")
classes = {}
for q in queries:
    first = runs[(q, variants[0])][0]
    ms = [statistics.median(r["elapsed_ms"] for r in runs[(q, v)]) for v in variants]
    equal = all(r["embeddings"] == first["embeddings"] and r["complete"] for v in variants for r in runs[(q, v)])
    cells = " | ".join(f"{m:.2f}" for m in ms)
    print(f"| {q} | {first['embeddings']:,} | {'yes' if equal else 'NO'} | {cells} | {first.get('gpu_structure')} |")
    classes.setdefault("_".join(q.split("_")[:2]), []).append(ms)
print()
print("| class | " + " | ".join(f"{v} median ms" for v in variants) + " |")
print("|---|" + "---:|" * len(variants))
for c, ms in classes.items():
    print(f"| {c} | " + " | ".join(f"{statistics.median(m[i] for m in ms):.2f}" for i in range(len(variants))) + " |")
