#!/usr/bin/env python3
"""Side by side: `subgraph match --format json` reports of the same queries run in several
variants (one JSON-lines file per variant, named VARIANT.jsonl or PREFIX-VARIANT.jsonl).

    bench/jsonl-table.py FILE.jsonl...

Prints a Markdown table, one row per query: per variant the elapsed ms (with `*` when the run
stopped early: timeout or limit), then the embeddings of the first variant and whether every
complete variant agrees on them; then per variant the number of complete queries and the
median elapsed ms over all queries (stopped ones at the time they stopped)."""

import json
import os
import statistics
import sys


def name(path):
    base = os.path.basename(path).removesuffix(".jsonl")
    return base.split("-", 1)[1] if "-" in base else base


def main():
    runs = []
    for path in sys.argv[1:]:
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.startswith("{")]
        runs.append((name(path), {r["query"]: r for r in rows}))
    queries = list(dict.fromkeys(q for _, rows in runs for q in rows))
    head = [v for v, _ in runs]
    print("| query | " + " | ".join(f"{v} ms" for v in head) + " | embeddings | agree |")
    print("|---|" + "---:|" * len(head) + "---:|---|")
    for q in queries:
        cells, counts = [], set()
        first = None
        for _, rows in runs:
            r = rows.get(q)
            if r is None:
                cells.append("-")
                continue
            mark = "" if r["complete"] else "*"
            cells.append(f"{r['elapsed_ms']:.1f}{mark}")
            if first is None:
                first = r
            if r["complete"]:
                counts.add(r["embeddings"])
        emb = f"{first['embeddings']:,}{'' if first['complete'] else ' (partial)'}" if first else "-"
        agree = "yes" if len(counts) <= 1 else "NO"
        print(f"| {os.path.basename(q)} | " + " | ".join(cells) + f" | {emb} | {agree} |")
    print()
    print("| variant | complete | median ms |")
    print("|---|---:|---:|")
    for v, rows in runs:
        done = sum(1 for r in rows.values() if r["complete"])
        med = statistics.median(r["elapsed_ms"] for r in rows.values()) if rows else float("nan")
        print(f"| {v} | {done} / {len(rows)} | {med:.1f} |")


if __name__ == "__main__":
    main()
