#!/usr/bin/env python3
"""Summary of bench/vertex-order.sh's folder: per query the median elapsed time with the
file's numbering and with the degree order (over the rounds), their ratio (file / degree:
above 1 is a gain), the counts of both, and the geometric mean, least and greatest ratio.
Queries that did not complete in some run are marked and left out of the means.

    python3 bench/vertex-order-summary.py OUT
"""
import glob
import json
import math
import os
import re
import statistics
import sys


def runs(folder, order):
    """query -> list of (elapsed_ms, embeddings, complete), over the rounds."""
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, f"{order}-*.jsonl"))):
        for line in open(path):
            r = json.loads(line)
            if "error" in r:
                continue
            out.setdefault(r["query"], []).append((r["elapsed_ms"], r["embeddings"], r["complete"]))
    return out


def renumber_ms(folder):
    """The renumbering's time per run, from the runs' standard error."""
    times = []
    for path in glob.glob(os.path.join(folder, "degree-*.err")):
        m = re.search(r"renumbered by degree in (\d+) ms", open(path).read())
        if m:
            times.append(int(m.group(1)))
    return times


def main(folder):
    file, degree = runs(folder, "file"), runs(folder, "degree")
    ratios = []
    print("| query | file ms | degree ms | file / degree | embeddings |")
    print("|---|---:|---:|---:|---|")
    for q in file:
        a, b = file[q], degree.get(q, [])
        done = b and all(c for _, _, c in a + b)
        fa = statistics.median(t for t, _, _ in a)
        fb = statistics.median(t for t, _, _ in b) if b else float("nan")
        counts = {e for _, e, c in a + b if c}
        if done and len(counts) != 1:
            agree = "**differ: " + " ".join(map(str, sorted(counts))) + "**"
        else:
            agree = str(next(iter(counts))) if counts else "-"
        if done:
            ratios.append(fa / fb)
            ratio = f"{fa / fb:.2f}"
        else:
            ratio = "incomplete"
        print(f"| {q} | {fa:.2f} | {fb:.2f} | {ratio} | {agree} |")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\n{len(ratios)} queries complete in every run: geomean {geo:.3f}, "
              f"least {min(ratios):.2f}, greatest {max(ratios):.2f}.")
    times = renumber_ms(folder)
    if times:
        print(f"Renumbering: {min(times)}-{max(times)} ms a run (outside every query's time).")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
