#!/usr/bin/env python3
"""GGQ's thread-ID enumeration benchmark (bench/ggq-ids.sh).

    bench/ggq-ids-table.py --patterns PATTERNS.txt FORM   the tree patterns of PATTERNS.txt
        (one per line, `RETURN count(*)`) rewritten for answer FORM (count, rows, distinct,
        exists), one per line
    bench/ggq-ids-table.py OUT                            Markdown tables of OUT's reports

Per data size and form, one row per pattern: matches (and distinct rows) with whether every
complete variant agrees, per variant the median elapsed ms of runs 2.. (`*`: stopped by the
timeout), GGQ's first run (its stream build included), its phases and thread IDs (from the
notes), what `auto` ran, and auto against the better of ggq and gsi."""

import glob
import json
import os
import re
import statistics
import sys

FORMS = ["count", "rows", "distinct", "exists"]
VARIANTS = ["ggq", "gsi", "auto", "cpu"]


def tree_patterns(path):
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        names = list(dict.fromkeys(re.findall(r"\((\w+)", line)))
        if line.count("[") + 1 == len(names):
            yield line, names


def rewrite(line, names, form):
    body = line[: line.index(" RETURN ")]
    return body + {
        "count": " RETURN count(*)",
        "rows": " RETURN *",
        "distinct": f" RETURN DISTINCT {names[0]}, {names[-1]}",
        "exists": " RETURN * LIMIT 1",
    }[form]


def load(path):
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.startswith("{")]


def notes(path):
    """Per pattern index: (phases, thread IDs) from GGQ's notes."""
    found = {}
    if os.path.exists(path):
        for line in open(path):
            m = re.search(r"pattern#(\d+): .*GGQ's thread IDs.*?: (\d+) phases?, (\d+) thread IDs", line)
            if m:
                found[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    return found


def fmt(ms):
    return "—" if ms is None else f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def table(out):
    sizes = sorted({int(p.split("-")[1]) for p in map(os.path.basename, glob.glob(f"{out}/ggq-*.jsonl"))})
    for u in sizes:
        for form in FORMS:
            runs = {v: load(f"{out}/ggq-{u}-{form}-{v}.jsonl") for v in VARIANTS}
            if not any(runs.values()):
                continue
            # Runs of one pattern are consecutive reports of the same pattern text.
            first_runs = max(runs.values(), key=len)
            per = next((k for k, r in enumerate(first_runs) if r["pattern"] != first_runs[0]["pattern"]), 1)
            n = len(first_runs) // per
            ids = notes(f"{out}/ggq-{u}-{form}-ggq.err")
            print(f"\n### {u} universities, {form}\n")
            print("| # | matches | rows | agree | " + " | ".join(f"{v} ms" for v in VARIANTS)
                  + " | ggq 1st ms | phases, thread IDs | auto ran | auto / best |")
            print("|---|---:|---:|---|" + "---:|" * len(VARIANTS) + "---:|---|---|---:|")
            within = 0
            for i in range(n):
                cells, answers, med = [], set(), {}
                first = None
                for v in VARIANTS:
                    rs = runs[v][i * per:(i + 1) * per]
                    if not rs:
                        cells.append("—")
                        continue
                    later = rs[1:] or rs
                    ms = statistics.median(r["elapsed_ms"] for r in later)
                    stopped = any(r.get("stopped") == "timeout" for r in rs)
                    med[v] = None if stopped else ms
                    cells.append(fmt(ms) + ("*" if stopped else ""))
                    if not stopped:
                        answers.add((rs[-1]["embeddings"] if form != "rows" and form != "exists" else None,
                                     rs[-1].get("rows")))
                    if v == "ggq":
                        first = rs[0]["elapsed_ms"]
                ref = next((runs[v][i * per] for v in VARIANTS if runs[v][i * per:(i + 1) * per]), {})
                auto = runs["auto"][i * per] if runs["auto"][i * per:] else {}
                ran = auto.get("gpu_strategy", auto.get("device", "—"))
                if auto.get("gpu_structure") == "tree":
                    ran = "tree passes"
                best = min((m for v, m in med.items() if v in ("ggq", "gsi") and m is not None), default=None)
                ratio = med.get("auto") / best if best and med.get("auto") else None
                within += ratio is not None and ratio <= 1.2
                ph = ids.get(i * per)
                print(f"| {i + 1} | {ref.get('embeddings', '—')} | {ref.get('rows', '—')} | "
                      f"{'yes' if len(answers) <= 1 else 'NO'} | " + " | ".join(cells)
                      + f" | {fmt(first)} | {f'{ph[0]}, {ph[1]:.2e}' if ph else '—'} | {ran} | "
                      + (f"{ratio:.2f}" if ratio else "—") + " |")
            print(f"\nauto within 1.2× of the better of ggq and gsi: {within} of {n}")


def main():
    if sys.argv[1] == "--patterns":
        for line, names in tree_patterns(sys.argv[2]):
            print(rewrite(line, names, sys.argv[3]))
    else:
        table(sys.argv[1])


main()
