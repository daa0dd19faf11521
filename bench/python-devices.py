"""The Python package on each device against the command line (issue 11): the same queries
counted through `subgraph.count(..., device=D)` and through `subgraph match --device D` in one
process each, every query run R times in a row, so that the per-query medians compare the
binding's cost and not one run's plan (the planner's trials are budgeted by time). Counts must
equal the known ones (and each other); a mismatch stops the script with exit 1.

    python bench/python-devices.py DATA ANSWERS QUERY... --cli PATH/subgraph \
        [--devices gpu cpu] [--runs 5] [--rows 10] [--out OUT.csv]

ANSWERS holds `name:count` or `name count` lines (tests/data/hprd/expected_output.res), or `-`.
With --rows N, the first N queries are also listed through `subgraph.match` on each device and
the rows compared (as sets) with the CPU's. Prints a markdown summary per device; OUT.csv gets
one row per query and device: Python wall and elapsed_ms medians, the CLI's elapsed_ms median.
"""

import argparse
import csv
import importlib.util
import json
import pathlib
import statistics
import subprocess
import sys
import time

import subgraph

# The known counts are read as the GPU suite reads them (scripts/compare-counts.py).
_spec = importlib.util.spec_from_file_location(
    "compare_counts", pathlib.Path(__file__).resolve().parents[1] / "scripts" / "compare-counts.py")
_compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_compare)
known_counts = _compare.known_counts


def cli_runs(cli, device, data, queries, runs):
    """elapsed_ms of each run of each query, and its count, from one CLI process."""
    args = [cli, "match", "-q", "--format", "json", "--device", device, data]
    for q in queries:
        args += [q] * runs
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    reports = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(reports) == len(queries) * runs, f"{len(reports)} reports for {len(queries) * runs} runs"
    per = {}
    for q, i in zip(queries, range(0, len(reports), runs)):
        group = reports[i:i + runs]
        per[q] = ([r["elapsed_ms"] for r in group], {r["embeddings"] for r in group}, group[0]["device"])
    return per


def fail(message):
    print(f"MISMATCH: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("answers")
    ap.add_argument("queries", nargs="+")
    ap.add_argument("--cli", required=True)
    ap.add_argument("--devices", nargs="+", default=["gpu", "cpu"])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rows", type=int, default=0)
    ap.add_argument("--out")
    a = ap.parse_args()
    known = known_counts(a.answers)
    data = subgraph.Graph.from_file(a.data)
    queries = {q: subgraph.Graph.from_file(q) for q in a.queries}
    table = []
    for device in a.devices:
        cli = cli_runs(a.cli, device, a.data, a.queries, a.runs)
        for q, query in queries.items():
            name = pathlib.Path(q).name.removesuffix(".graph")
            walls, own, counts, where = [], [], set(), set()
            for _ in range(a.runs):
                start = time.perf_counter()
                result = subgraph.count(data, query, device=device)
                walls.append((time.perf_counter() - start) * 1e3)
                own.append(result.elapsed_ms)
                counts.add(result.embeddings)
                where.add(result.device)
                if not result.complete:
                    fail(f"{name} on {device} incomplete")
            cli_ms, cli_counts, cli_device = cli[q]
            every = counts | cli_counts | ({known[name]} if name in known else set())
            if len(every) != 1:
                fail(f"{name} on {device}: python {sorted(counts)}, cli {sorted(cli_counts)}, known {known.get(name)}")
            table.append({
                "query": name, "device": device, "ran_on": "/".join(sorted(where)), "cli_ran_on": cli_device,
                "embeddings": counts.pop(), "py_wall_ms": statistics.median(walls),
                "py_elapsed_ms": statistics.median(own), "cli_elapsed_ms": statistics.median(cli_ms),
            })
    for q in a.queries[:a.rows]:
        name = pathlib.Path(q).name.removesuffix(".graph")
        sets = {}
        for device in a.devices:
            rows = subgraph.match(data, queries[q], device=device)
            sets[device] = {tuple(r) for r in rows.tolist()}
            if len(sets[device]) != len(rows):
                fail(f"{name} on {device}: {len(rows)} rows, {len(sets[device])} distinct")
        if len({frozenset(s) for s in sets.values()}) != 1:
            fail(f"{name}: the devices' rows differ")
        print(f"rows {name}: {len(next(iter(sets.values())))} rows, equal on {', '.join(a.devices)}")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0]))
            w.writeheader()
            w.writerows(table)
    print("| device | queries | ran on | Python wall median ms | Python elapsed_ms median | CLI elapsed_ms median "
          "| wall − CLI median ms | within 10% or 0.1 ms of the CLI |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for device in a.devices:
        rows = [r for r in table if r["device"] == device]
        gaps = [r["py_wall_ms"] - r["cli_elapsed_ms"] for r in rows]
        within = sum(g <= max(0.1, 0.1 * r["cli_elapsed_ms"]) for g, r in zip(gaps, rows))
        ran = sorted({r["ran_on"] for r in rows})
        print(f"| {device} | {len(rows)} | {', '.join(ran)} | {statistics.median(r['py_wall_ms'] for r in rows):.3f} "
              f"| {statistics.median(r['py_elapsed_ms'] for r in rows):.3f} "
              f"| {statistics.median(r['cli_elapsed_ms'] for r in rows):.3f} | {statistics.median(gaps):+.3f} "
              f"| {within} of {len(rows)} |")


if __name__ == "__main__":
    main()
