"""Per class of `bench/sunluo.sh` CSVs (DIR/SET-CLASS.csv): medians, the median of per-query
ratios (framework / ours) over queries both finished, the ratio of medians, the worst ratio,
timeouts and count mismatches. With --old DIR2, also the median ratio of the older binary's
run (DIR2/old-SET-CLASS.jsonl, `subgraph match --format json`) against the same framework times."""
import csv, glob, json, os, statistics as st, sys

d = sys.argv[1]
old = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--old" else None
print("| set | class | queries | framework median ms | ours median ms | median of per-query ratios | ratio of medians | min ratio | timeouts fw / ours | mismatches |" + (" before (median of ratios) |" if old else ""))
print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|" + ("---:|" if old else ""))
for f in sorted(glob.glob(f"{d}/*.csv")):
    r = list(csv.DictReader(open(f)))
    both = [x for x in r if x["framework_done"] == "1" and x["ours_done"] == "1"]
    rat = [float(x["framework_ms"]) / float(x["ours_ms"]) for x in both]
    mism = sum(1 for x in both if x["framework_embeddings"] != x["ours_embeddings"])
    fto = sum(x["framework_done"] != "1" for x in r)
    oto = sum(x["ours_done"] != "1" for x in r)
    name = os.path.basename(f)[:-4]
    s, c = name.split("-")
    fm = st.median(float(x["framework_ms"]) for x in both)
    om = st.median(float(x["ours_ms"]) for x in both)
    line = f"| {s} | {c} | {len(r)} | {fm:.2f} | {om:.2f} | {st.median(rat):.2f} | {fm / om:.2f} | {min(rat):.2f} | {fto} / {oto} | {mism} |"
    if old:
        p = f"{old}/old-{name}.jsonl"
        if os.path.exists(p):
            o = {json.loads(l)["query"]: json.loads(l) for l in open(p)}
            qs = [x for x in both if x["query"] in o and o[x["query"]]["stopped"] != "timeout"]
            line += f" {st.median(float(x['framework_ms']) / o[x['query']]['elapsed_ms'] for x in qs):.2f} |"
        else:
            line += " |"
    print(line)
