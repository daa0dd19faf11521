#!/usr/bin/env python3
"""Query by query against the Sun & Luo framework, one thread each, on several lanes at once.

    bench/sunluo-lanes.py --framework FW --data DATA --out OUT.csv \
        --subgraph NAME=BINARY [--subgraph NAME=BINARY ...] [--lanes N] [--timeout S] QUERY...

Each query is one task: the framework (`FW -d DATA -q QUERY -filter GQL -order GQL -engine LFTJ
-num MAX`, its `Total time`, loading excluded), then each `subgraph` binary in turn (`match -q
--format json --device cpu --threads 1 --timeout S DATA QUERY`, its `elapsed_ms`, loading excluded), on one
lane; N lanes (default: cores - 1) run tasks side by side, so that every system of one query
sees the same moment of the host. OUT.csv gets one line per query, in the order they end: the framework's ms,
embeddings and done (0 on a timeout), then per binary its ms, embeddings, done, and the
planning stages of its JSON record (order_ms, trial_ms, compare_ms, probe_ms, enumerate_ms).
Summaries: bench/sunluo-lanes-summary.py OUT.csv...
"""
import argparse
import concurrent.futures
import csv
import json
import os
import re
import subprocess
import sys

STAGES = ["order_ms", "trial_ms", "compare_ms", "probe_ms", "enumerate_ms"]


def framework(fw, data, query, timeout):
    cmd = [fw, "-d", data, "-q", query, "-filter", "GQL", "-order", "GQL", "-engine", "LFTJ", "-num", "MAX"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return [timeout * 1000.0, "", 0]
    ms = re.search(r"^Total time.*?:\s*([0-9.eE+-]+)", out, re.M)
    emb = re.search(r"^#Embeddings:\s*(\d+)", out, re.M)
    if not ms or not emb:
        return [timeout * 1000.0, "", 0]
    return [float(ms.group(1)) * 1000.0, int(emb.group(1)), 1]


def ours(binary, data, query, timeout):
    cmd = [binary, "match", "-q", "--format", "json", "--device", "cpu", "--threads", "1", "--timeout", str(timeout),
           data, query]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30).stdout
        r = json.loads(out.strip().splitlines()[0])
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return [timeout * 1000.0, "", 0] + [""] * len(STAGES)
    done = 0 if r.get("stopped") == "timeout" else 1
    return [r["elapsed_ms"], r["embeddings"], done] + [r.get(s, 0.0) for s in STAGES]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--framework", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--subgraph", action="append", required=True, metavar="NAME=BINARY")
    ap.add_argument("--lanes", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    ap.add_argument("--timeout", type=int, default=10)
    ap.add_argument("queries", nargs="+")
    a = ap.parse_args()
    binaries = [s.split("=", 1) for s in a.subgraph]

    def task(q):
        row = [q] + framework(a.framework, a.data, q, a.timeout)
        for _, b in binaries:
            row += ours(b, a.data, q, a.timeout)
        return row

    header = ["query", "framework_ms", "framework_embeddings", "framework_done"]
    for name, _ in binaries:
        header += [f"{name}_ms", f"{name}_embeddings", f"{name}_done"] + [f"{name}_{s}" for s in STAGES]
    with concurrent.futures.ThreadPoolExecutor(a.lanes) as pool, open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        # Rows as their tasks end, each flushed: a run cut short keeps what it finished.
        for done in concurrent.futures.as_completed([pool.submit(task, q) for q in a.queries]):
            w.writerow(done.result())
            f.flush()
    print(f"{len(a.queries)} queries -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
