#!/usr/bin/env python3
"""Summary of bench/sunluo-lanes.py's CSVs: per set and class, and per binary.

    bench/sunluo-lanes-summary.py [--min-framework-ms 4] OUT.csv...

The set is the CSV's file name (yeast.csv: yeast); the class is the query's `dense_K`/`sparse_K`.
Ratios are framework / ours over the queries the framework finished in at least
--min-framework-ms (ours timed out: its timeout counts as its time). Planning is order_ms +
trial_ms + probe_ms (the comparison is inside order_ms; trials and probes inside enumerate_ms);
the planning rule of issue 45 is checked on every query whose enumeration (enumerate_ms - trial_ms
- probe_ms) took under 20 ms: planning at most 10 % of elapsed_ms, or at most 0.5 ms.
"""
import argparse
import csv
import math
import os
import re
import statistics


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-framework-ms", type=float, default=4.0)
    ap.add_argument("csvs", nargs="+")
    a = ap.parse_args()
    rows = []
    for path in a.csvs:
        s = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            for r in csv.DictReader(f):
                m = re.search(r"(dense|sparse)_(\d+)", os.path.basename(r["query"]))
                r["set"], r["class"] = s, (m.group(0) if m else "other")
                rows.append(r)
    # The binaries, by their `NAME_done` columns.
    names = [k[: -len("_done")] for k in rows[0] if k.endswith("_done") and k != "framework_done"]
    f = lambda r, k: float(r[k]) if r[k] not in ("", None) else float("nan")
    for name in names:
        print(f"## {name}\n")
        mism = [r["query"] for r in rows if r["framework_done"] == "1" and r[f"{name}_done"] == "1"
                and r["framework_embeddings"] != r[f"{name}_embeddings"]]
        heavy = [r for r in rows if r["framework_done"] == "1" and f(r, "framework_ms") >= a.min_framework_ms]
        print(f"{len(rows)} queries; {len(heavy)} with the framework at {a.min_framework_ms} ms or more; "
              f"mismatches: {len(mism)} {mism[:5]}\n")
        print("| set | class | queries | framework median ms | ours median ms | geomean ratio | min ratio | below 1x |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        groups = {}
        for r in heavy:
            groups.setdefault((r["set"], r["class"]), []).append(r)
        key = lambda k: (k[0], k[1].split("_")[0], int(k[1].split("_")[1]) if "_" in k[1] else 0)
        all_ratios = []
        for k in sorted(groups, key=key):
            g = groups[k]
            ratios = [f(r, "framework_ms") / max(f(r, f"{name}_ms"), 1e-3) for r in g]
            all_ratios += ratios
            print(f"| {k[0]} | {k[1]} | {len(g)} | {statistics.median(f(r, 'framework_ms') for r in g):.2f} | "
                  f"{statistics.median(f(r, f'{name}_ms') for r in g):.2f} | {geomean(ratios):.2f} | "
                  f"{min(ratios):.2f} | {sum(x < 1 for x in ratios)} |")
        print(f"| all | | {len(all_ratios)} | | | **{geomean(all_ratios):.2f}** | {min(all_ratios, default=float('nan')):.2f} | "
              f"{sum(x < 1 for x in all_ratios)} |\n")
        below = sorted(((f(r, "framework_ms") / max(f(r, f"{name}_ms"), 1e-3), r) for r in heavy), key=lambda x: x[0])
        below = [(x, r) for x, r in below if x < 1]
        if below:
            print("Below 1x:\n")
            for x, r in below:
                print(f"- {r['set']} {os.path.basename(r['query'])}: {x:.2f}x "
                      f"(framework {f(r, 'framework_ms'):.2f} ms, ours {f(r, f'{name}_ms'):.2f} ms, "
                      f"planning {planning(r, name, f):.2f} ms)")
            print()
        checked = [r for r in rows if r[f"{name}_done"] == "1" and enumeration(r, name, f) < 20]
        over = [r for r in checked if planning(r, name, f) > 0.5 and planning(r, name, f) > 0.1 * f(r, f"{name}_ms")]
        share = [planning(r, name, f) / max(f(r, f"{name}_ms"), 1e-3) for r in checked]
        print(f"Planning rule (enumeration under 20 ms: planning <= 10 % of elapsed or <= 0.5 ms): "
              f"{len(checked) - len(over)} of {len(checked)} queries meet it; "
              f"planning share median {statistics.median(share) if share else float('nan'):.3f}, "
              f"max {max(share, default=float('nan')):.3f}\n")
        for r in sorted(over, key=lambda r: -planning(r, name, f))[:15]:
            print(f"- over: {r['set']} {os.path.basename(r['query'])}: planning {planning(r, name, f):.2f} of "
                  f"{f(r, f'{name}_ms'):.2f} ms (trial {f(r, f'{name}_trial_ms'):.2f}, compare "
                  f"{f(r, f'{name}_compare_ms'):.2f}, probe {f(r, f'{name}_probe_ms'):.2f})")
        print()


def planning(r, name, f):
    return f(r, f"{name}_order_ms") + f(r, f"{name}_trial_ms") + f(r, f"{name}_probe_ms")


def enumeration(r, name, f):
    return f(r, f"{name}_enumerate_ms") - f(r, f"{name}_trial_ms") - f(r, f"{name}_probe_ms")


if __name__ == "__main__":
    main()
