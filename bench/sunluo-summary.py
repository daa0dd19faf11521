#!/usr/bin/env python3
"""Summarises bench/sunluo.sh results: per class (the query file's Sun & Luo class, e.g.
dense_8, else its parent folder) the queries, the medians of both times, the ratio of the
medians (framework / ours, above 1: ours faster), the geometric mean and the smallest of the
per-query ratios over the queries both finished, timeouts on each side and count mismatches;
then the same over all rows.

    bench/sunluo-summary.py OUT.csv... [--min-framework-ms MS]

--min-framework-ms keeps only the queries on which the framework took at least MS (a query it
did not finish counts as taking its timeout)."""

import csv
import math
import os
import re
import statistics
import sys


def klass(path):
    m = re.search(r"query_(dense|sparse)_(\d+)_\d+", os.path.basename(path))
    if m:
        return f"{m.group(1)}_{m.group(2)}"
    m = re.search(r"(dense|sparse)_(\d+)_\d+", os.path.basename(path))
    if m:
        return f"{m.group(1)}_{m.group(2)}"
    return os.path.basename(os.path.dirname(path))


def main():
    args = sys.argv[1:]
    min_ms = 0.0
    if "--min-framework-ms" in args:
        i = args.index("--min-framework-ms")
        min_ms = float(args[i + 1])
        del args[i : i + 2]
    groups = {}
    every = []
    for path in args:
        name = os.path.basename(path).removesuffix(".csv")
        with open(path) as f:
            for r in csv.DictReader(f):
                if float(r["framework_ms"] or 0) < min_ms:
                    continue
                groups.setdefault((name, klass(r["query"])), []).append(r)
                every.append(r)
    print("| set | class | queries | framework median ms | ours median ms | ratio of medians | "
          "geomean ratio | min ratio | timeouts framework / ours | mismatches |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for (name, c), rows in sorted(groups.items()):
        line(name, c, rows)
    line("all", "", every)


def line(name, c, rows):
    fw = [float(r["framework_ms"]) for r in rows]
    ours = [float(r["ours_ms"]) for r in rows]
    both = [r for r in rows if r["framework_done"] == "1" and r["ours_done"] == "1"]
    ratios = [float(r["framework_ms"]) / max(float(r["ours_ms"]), 1e-3) for r in both]
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
    mism = sum(1 for r in both if r["framework_embeddings"] != r["ours_embeddings"])
    fto = sum(1 for r in rows if r["framework_done"] != "1")
    oto = sum(1 for r in rows if r["ours_done"] != "1")
    mf, mo = statistics.median(fw), statistics.median(ours)
    lo = min(ratios) if ratios else float("nan")
    print(f"| {name} | {c} | {len(rows)} | {mf:.2f} | {mo:.2f} | {mf / max(mo, 1e-3):.2f} | {geo:.2f} | "
          f"{lo:.2f} | {fto} / {oto} | {mism} |")


if __name__ == "__main__":
    main()
