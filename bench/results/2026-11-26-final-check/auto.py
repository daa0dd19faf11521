"""Per class: auto's time over the better of the GPU (default filter) and the 16-core CPU, per query; prints class medians and the worst query."""
import json, statistics, sys, glob, os
d = sys.argv[1]
rows = []
for f in sorted(glob.glob(f"{d}/sets-*-auto.jsonl")):
    base = f[: -len("-auto.jsonl")]
    name = os.path.basename(base)[5:]
    runs = {}
    for dev in ("gpu-default", "cpu", "auto"):
        runs[dev] = {json.loads(l)["query"]: json.loads(l) for l in open(f"{base}-{dev}.jsonl")}
    ratios, worst, mism = [], (0, None), 0
    on_gpu = 0
    for q, a in runs["auto"].items():
        g, c = runs["gpu-default"].get(q), runs["cpu"].get(q)
        if not g or not c:
            continue
        if not (a["embeddings"] == g["embeddings"] == c["embeddings"]):
            mism += 1
        best = min(g["elapsed_ms"], c["elapsed_ms"])
        r = a["elapsed_ms"] / best
        ratios.append(r)
        on_gpu += a["device"] == "gpu"
        if r > worst[0]:
            worst = (r, q.split("/")[-1])
    med = statistics.median(ratios)
    rows.append((name, len(ratios), med, on_gpu, worst, mism,
                 statistics.median(x["elapsed_ms"] for x in runs["auto"].values()),
                 statistics.median(x["elapsed_ms"] for x in runs["cpu"].values()),
                 statistics.median(x["elapsed_ms"] for x in runs["gpu-default"].values())))
print("| class | queries | median auto/best | auto on GPU | worst query | count mismatches | median ms auto / cpu / gpu |")
print("|---|---:|---:|---:|---|---:|---|")
for n, k, m, g, w, mm, a, c, gg in rows:
    print(f"| {n} | {k} | {m:.2f} | {g} | {w[1]} {w[0]:.2f} | {mm} | {a:.2f} / {c:.2f} / {gg:.2f} |")
print("classes over 1.2:", sum(r[2] > 1.2 for r in rows), "of", len(rows))
