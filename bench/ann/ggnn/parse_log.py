#!/usr/bin/env python3
"""Parse ggnn_benchmark logs (glog to stderr) into a CSV and a short summary.

usage: parse_log.py OUT.csv LOG [LOG ...]     (summary goes to stdout)

Per query setting the log has (file:line in GGNN 4f8088f):
  ggnn_benchmark.cpp:181  "Query with tau_query T max iterations M"
  gpu_instance.cu:710     "[GPU: 0] query part: 0 => ms: X [N points query -> U us/point]"
                          (cudaEvent pair around the query kernel only, lines 687-690)
  ggnn_benchmark.cpp:183  "c@1 (=r@1): a +duplicates: b" / "c@10: c ..." / "r@10: d ..."
Build: ggnn.cu:238-239 "Sum of shard build times: S s", "Wall time: W s";
       gpu_instance.cu:541 "build(): part: 0 refinement step: i => seconds: s".
c@10 = |top-10 found ∩ true top-10| / 10, averaged (the usual recall@10, "10@10");
r@10 = share of queries whose true nearest neighbour is among the 10 found ("1@10").
"+duplicates" variants also accept ground-truth ties at equal distance.
"""
import csv
import re
import sys

NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)"
RE_Q = re.compile(r"Query with tau_query " + NUM + r" max iterations (\d+)")
RE_PART = re.compile(r"query part: (\d+) => ms: " + NUM + r" \[(\d+) points query")
RE_C1 = re.compile(r"c@1 \(=r@1\): " + NUM + r"(?: \+duplicates: " + NUM + ")?")
RE_CK = re.compile(r"^c@(\d+): " + NUM + r"(?: \+duplicates: " + NUM + ")?")
RE_RK = re.compile(r"^r@(\d+): " + NUM + r"(?: \+duplicates: " + NUM + ")?")
RE_BSUM = re.compile(r"Sum of shard build times: " + NUM + " s")
RE_BWALL = re.compile(r"Wall time: " + NUM + " s")
RE_REF = re.compile(r"refinement step: (\d+) => seconds: " + NUM)
RE_LOADED = re.compile(r"load\(\) done")


def f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def parse(path):
    rows, info = [], {"log": path, "build_sum_s": None, "build_wall_s": None,
                      "refine_steps": [], "loaded_graph": False}
    cur = None
    with open(path, errors="replace") as fh:
        for raw in fh:
            # strip the glog prefix "I1129 22:14:46.118121 1402 file.cpp:73] "
            line = raw.rstrip("\n")
            msg = line.split("] ", 1)[1] if re.match(r"^[IWEF]\d{4}", line) and "] " in line else line
            msg = msg.strip()
            if m := RE_BSUM.search(msg):
                info["build_sum_s"] = f(m.group(1))
            elif m := RE_BWALL.search(msg):
                info["build_wall_s"] = f(m.group(1))
            elif m := RE_REF.search(msg):
                info["refine_steps"].append((int(m.group(1)), f(m.group(2))))
            elif RE_LOADED.search(msg):
                info["loaded_graph"] = True
            elif m := RE_Q.search(msg):
                cur = {"log": path, "max_iterations": int(m.group(2)), "tau_query": f(m.group(1)),
                       "query_ms": None, "n_queries": None}
                rows.append(cur)
            elif cur is not None and (m := RE_PART.search(msg)):
                # single shard: one part; with shards, sum the parts (sort time not included)
                cur["query_ms"] = (cur["query_ms"] or 0.0) + f(m.group(2))
                cur["n_queries"] = int(m.group(3))
            elif cur is not None and (m := RE_C1.search(msg)):
                cur["c1"], cur["c1_dup"] = f(m.group(1)), f(m.group(2))
            elif cur is not None and (m := RE_CK.match(msg)):
                cur["k"], cur["c10"], cur["c10_dup"] = int(m.group(1)), f(m.group(2)), f(m.group(3))
            elif cur is not None and (m := RE_RK.match(msg)):
                cur["r10"], cur["r10_dup"] = f(m.group(2)), f(m.group(3))
    for r in rows:
        ms, n = r.get("query_ms"), r.get("n_queries")
        r["qps"] = (n / (ms / 1000.0)) if ms and n else float("nan")
        r["us_per_query"] = (ms * 1000.0 / n) if ms and n else float("nan")
    return rows, info


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    out_csv, logs = sys.argv[1], sys.argv[2:]
    all_rows, infos = [], []
    for p in logs:
        rows, info = parse(p)
        all_rows += rows
        infos.append(info)
    cols = ["max_iterations", "tau_query", "n_queries", "query_ms", "qps", "us_per_query",
            "c10", "c10_dup", "r10", "r10_dup", "c1", "c1_dup", "log"]
    with open(out_csv, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in all_rows:
            w.writerow({c: r.get(c) for c in cols})

    print("== graph build (KBuild 24, tau_build 0.5, 2 refinement iterations)")
    for i in infos:
        if i["build_sum_s"] is not None:
            steps = ", ".join(f"step {s}: {t:.3f}s" for s, t in i["refine_steps"])
            print(f"  {i['log']}: GPU build time (cudaEvent, sum of shards) {i['build_sum_s']:.3f} s;"
                  f" host wall time of GGNN::build() {i['build_wall_s']:.3f} s  [{steps}]")
        elif i["loaded_graph"]:
            print(f"  {i['log']}: graph loaded from graph_dir (no build)")
        else:
            print(f"  {i['log']}: no build/load line found (run failed?)")
    print("== queries (k=10, batch of n_queries; qps = n_queries / GPU kernel time)")
    print(f"  {'iters':>5} {'tau':>5} {'ms':>9} {'QPS':>11} {'recall@10':>9} {'(+dup)':>7}"
          f" {'1@10':>6} {'R@1':>6}")
    for r in all_rows:
        c10 = r.get("c10", float("nan"))
        mark = " *" if 0.85 <= c10 <= 0.995 else ""
        print(f"  {r['max_iterations']:>5} {r['tau_query']:>5.2f} {r.get('query_ms') or float('nan'):>9.3f}"
              f" {r['qps']:>11.0f} {c10:>9.4f} {r.get('c10_dup', float('nan')):>7.4f}"
              f" {r.get('r10', float('nan')):>6.4f} {r.get('c1', float('nan')):>6.4f}{mark}")
    print("  (* = recall@10 within 0.85..0.995)")
    print("== best QPS reaching a recall@10 target (over all max_iterations / tau_query)")
    for thr in (0.85, 0.90, 0.95, 0.98, 0.99, 0.995):
        ok = [r for r in all_rows if r.get("c10", 0) >= thr and r["qps"] == r["qps"]]
        if ok:
            b = max(ok, key=lambda r: r["qps"])
            print(f"  recall@10 >= {thr:.3f}: {b['qps']:>11.0f} QPS  (max_iterations {b['max_iterations']},"
                  f" tau_query {b['tau_query']:.2f}, recall@10 {b['c10']:.4f})")
        else:
            print(f"  recall@10 >= {thr:.3f}: not reached")
    print(f"== {len(all_rows)} settings -> {out_csv}")


if __name__ == "__main__":
    main()
