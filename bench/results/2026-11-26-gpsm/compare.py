"""GpSM against GSI per class: python3 compare.py DIR (a call's unpacked r3/).

Per class: queries both completed, counts equal among them, each one's timeouts, the median
elapsed ms of each over the queries both completed, and the median of per-query ratios."""
import json
import statistics
import sys
from pathlib import Path

d = Path(sys.argv[1])


def load(p):
    return {Path(r["query"]).name: r for r in map(json.loads, open(p))}


print("| set | class | both complete | equal counts | GSI timeouts | GpSM timeouts | GSI median ms | GpSM median ms | median GpSM/GSI |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
rows = []
for gsi_file in sorted(d.glob("sets-*-gpu-default.jsonl")):
    _, graph, cls = gsi_file.stem.split("-")[:3]
    gsi, gpsm = load(gsi_file), load(str(gsi_file).replace("gpu-default", "gpu-gpsm"))
    both = [q for q in gsi if gsi[q]["complete"] and q in gpsm and gpsm[q]["complete"]]
    equal = sum(gsi[q]["embeddings"] == gpsm[q]["embeddings"] for q in both)
    med = lambda runs: statistics.median(runs[q]["elapsed_ms"] for q in both) if both else float("nan")
    ratio = statistics.median(gpsm[q]["elapsed_ms"] / gsi[q]["elapsed_ms"] for q in both) if both else float("nan")
    t_gsi = sum(not r["complete"] for r in gsi.values())
    t_gpsm = sum(not r["complete"] for r in gpsm.values())
    print(f"| {graph} | {cls} | {len(both)} | {equal} | {t_gsi} | {t_gpsm} | {med(gsi):.2f} | {med(gpsm):.2f} | {ratio:.1f} |")
for name in ("g3h-gpu.jsonl",):
    if (d / name).exists():
        gsi, gpsm = load(d / name), load(d / "g3h-gpsm.jsonl")
        print()
        print("| G3 query | embeddings | equal | GSI ms | GpSM ms | GpSM/GSI | GSI candidates | GpSM candidates | GSI filter ms | GpSM filter ms |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        for q in sorted(gsi, key=lambda s: (s.split("_")[0], int(s.split("_")[1]), int(s.split("_")[2].split(".")[0]))):
            a, b = gsi[q], gpsm[q]
            eq = a["embeddings"] == b["embeddings"] and a["complete"] and b["complete"]
            print(f"| {q[:-6]} | {a['embeddings']:,} | {'yes' if eq else 'NO'} | {a['elapsed_ms']:.1f} | {b['elapsed_ms']:.1f} | {b['elapsed_ms'] / a['elapsed_ms']:.1f} | {a['candidates']} | {b['candidates']} | {a['filter_ms']:.2f} | {b['filter_ms']:.2f} |")
