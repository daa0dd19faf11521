"""The table of bench/sparql/compare.sh from its OUT_DIR: per pattern the count (subgraph's
and Oxigraph's must be equal), Oxigraph's and subgraph's median ms, and their ratio; exit 1
on a count mismatch.

    python3 bench/sparql/table.py OUT_DIR RUNS DEVICE...
"""
import json, statistics, sys
out, runs, devices = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ox = [json.loads(l) for l in open(f"{out}/oxigraph.jsonl")]
ours = {}
for d in devices:
    rs = [json.loads(l) for l in open(f"{out}/subgraph-{d}.jsonl")]
    ours[d] = [rs[i:i + runs] for i in range(0, len(rs), runs)]
print("| # | pattern | count | Oxigraph ms | " + " | ".join(f"subgraph {d} ms | ratio" for d in devices) + " |")
print("|---:|---|---:|---:|" + "---:|---:|" * len(devices))
ratios = {d: [] for d in devices}
bad = set()
for i, o in enumerate(ox):
    cells = []
    for d in devices:
        group = ours[d][i]
        ms = statistics.median(r["elapsed_ms"] for r in group)
        counts = {r["embeddings"] for r in group if r["complete"]}
        if "count" in o and counts != {int(o["count"])}:
            bad.add(i)
        if "ms" in o:
            ratios[d].append(o["ms"] / ms)
            cells.append(f"{ms:.2f} | {o['ms'] / ms:.1f}x")
        else:
            cells.append(f"{ms:.2f} | >{o['timeout_s'] / (ms / 1e3):.0f}x")
    count = o.get("count", next(iter({r['embeddings'] for r in ours[devices[0]][i]})))
    oxms = f"{o['ms']:.1f}" if "ms" in o else f"> {o['timeout_s'] * 1e3:.0f} (timeout)"
    print(f"| {i} | `{o['pattern'][6:60]}…` | {count} | {oxms} | " + " | ".join(cells) + " |")
print()
for d in devices:
    r = ratios[d]
    print(f"{d}: Oxigraph / subgraph over the {len(r)} patterns Oxigraph finished: median {statistics.median(r):.1f}x, "
          f"geomean {statistics.geometric_mean(r):.1f}x, min {min(r):.1f}x")
print(f"count mismatches: {len(bad)} of {len(ox)} patterns {sorted(bad)}")
sys.exit(1 if bad else 0)
