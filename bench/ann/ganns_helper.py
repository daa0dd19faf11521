#!/usr/bin/env python3
"""Helpers for bench/ann/ganns.sh (standard library + numpy).

    ganns_helper.py shape FILE                      -> "n dim" of an .fvecs/.ivecs file
    ganns_helper.py apply-patch PATCH DIR           -> apply a unified diff (-p1) under DIR
                                                       (used when neither `patch` nor `git` is there)
    ganns_helper.py build-seconds LOG               -> GANNS' "Running time: X seconds"
    ganns_helper.py rows --log LOG --ann ANN --gt GT --system S --dataset D --n N --dim D
        --build-seconds B --param E --out CSV [--k 10]
                                                    -> two CSV rows for one search setting

What GANNS prints for a search (with bench/ann/ganns.patch applied), per repetition:
    Query speed: X QPS     its own host timer around its Search(): copies base, graph and
                           queries to the GPU, runs the kernel, copies results back, frees
    Kernel time: X ms      (the patch) CUDA events around the search kernel alone
    Recall: X              its recall: found[:k] against the first k ground-truth ids
`rows` writes row 1 as SYSTEM with GANNS' own QPS and row 2 as SYSTEM-kernel with
queries / kernel seconds (medians over the repetitions). recall_at_10 is recomputed here from
the result ids GANNS wrote (GANNS_ANN_OUT) against GT, and checked against GANNS' own figure.
"""

import argparse
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import annio  # noqa: E402


def die(msg):
    sys.exit(f"ganns_helper: ERROR: {msg}")


def cmd_shape(a):
    n, d = annio.fvecs_shape(a.file)
    print(n, d)


def cmd_apply_patch(a):
    """Minimal unified-diff applier (-p1): hunks are located by their exact old text."""
    text = open(a.patch).read().split("\n")
    i, files = 0, []
    while i < len(text):
        if text[i].startswith("--- ") and i + 1 < len(text) and text[i + 1].startswith("+++ "):
            path = text[i + 1][4:].split("\t")[0].strip()
            path = path.split("/", 1)[1] if "/" in path else path
            hunks = []
            i += 2
            while i < len(text) and text[i].startswith("@@"):
                m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", text[i])
                if not m:
                    die(f"bad hunk header: {text[i]}")
                old_n = int(m.group(2) if m.group(2) is not None else 1)
                new_n = int(m.group(4) if m.group(4) is not None else 1)
                start = int(m.group(1))
                old, new = [], []
                i += 1
                while (len(old) < old_n or len(new) < new_n) and i < len(text):
                    line = text[i]
                    if line.startswith("\\"):
                        i += 1
                        continue
                    tag, body = (line[:1] or " "), line[1:]
                    if tag in " -":
                        old.append(body)
                    if tag in " +":
                        new.append(body)
                    i += 1
                while i < len(text) and text[i].startswith("\\"):
                    i += 1
                hunks.append((start, old, new))
            files.append((path, hunks))
        else:
            i += 1
    if not files:
        die(f"{a.patch}: no file diffs found")
    for path, hunks in files:
        full = os.path.join(a.dir, path)
        lines = open(full).read().split("\n")
        offset = 0
        for start, old, new in hunks:
            want = max(0, start - 1 + offset)
            found = None
            for delta in range(0, len(lines) + 1):
                for pos in (want - delta, want + delta):
                    if 0 <= pos <= len(lines) - len(old) and lines[pos : pos + len(old)] == old:
                        found = pos
                        break
                if found is not None:
                    break
            if found is None:
                die(f"{path}: hunk at line {start} does not apply")
            lines[found : found + len(old)] = new
            offset += len(new) - len(old)
        with open(full, "w") as f:
            f.write("\n".join(lines))
        print(f"patched {path} ({len(hunks)} hunks)")


def _floats(pattern, log):
    return [float(x) for x in re.findall(pattern, log)]


def cmd_build_seconds(a):
    log = open(a.log, errors="replace").read()
    t = _floats(r"Running time: ([0-9.eE+-]+) seconds", log)
    if not t:
        die(f"{a.log}: no 'Running time: X seconds' line (did the build finish?)")
    print(t[-1])


def cmd_rows(a):
    log = open(a.log, errors="replace").read()
    qps = _floats(r"Query speed: ([0-9.eE+-]+|inf) QPS", log)
    kms = _floats(r"Kernel time: ([0-9.eE+-]+) ms", log)
    rec = _floats(r"Recall: ([0-9.eE+-]+)", log)
    m = re.search(r"Search parameters: k=(\d+) M=(\d+) e=(\d+) queries=(\d+)", log)
    if not qps or not rec or not m:
        die(f"{a.log}: missing 'Query speed', 'Recall' or 'Search parameters' lines")
    nq = int(m.group(4))
    gt = annio.read_ivecs(a.gt)
    if not os.path.exists(a.ann):
        die(f"{a.ann}: GANNS wrote no result file")
    found = annio.read_ivecs(a.ann)
    if found.shape[0] != nq or gt.shape[0] != nq:
        die(f"{found.shape[0]} result rows, {gt.shape[0]} ground-truth rows, {nq} queries")
    ours = annio.recall_at_k(found, gt, 10)
    if abs(ours - rec[-1]) > 1e-3:
        print(f"ganns_helper: WARNING: recall@10 here {ours:.4f}, GANNS says {rec[-1]:.4f}", file=sys.stderr)
    base = dict(dataset=a.dataset, n=a.n, dim=a.dim, build_seconds=a.build_seconds, param=a.param,
                recall_at_10=ours, batch=nq, threads="gpu")
    rows = [dict(base, system=a.system, qps=statistics.median(qps))]
    if kms and min(kms) > 0:
        rows.append(dict(base, system=a.system + "-kernel", qps=nq / (statistics.median(kms) / 1000.0)))
    annio.append_rows(a.out, rows)
    ktxt = f", kernel-only {rows[1]['qps']:.0f} QPS" if len(rows) > 1 else ""
    print(f"{a.system}: e={a.param} M={m.group(2)} recall@10={ours:.4f} (GANNS: {rec[-1]:.4f}) "
          f"QPS {rows[0]['qps']:.0f} (GANNS' timer, with transfers){ktxt}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("shape")
    p.add_argument("file")
    p.set_defaults(fn=cmd_shape)
    p = sub.add_parser("apply-patch")
    p.add_argument("patch")
    p.add_argument("dir")
    p.set_defaults(fn=cmd_apply_patch)
    p = sub.add_parser("build-seconds")
    p.add_argument("log")
    p.set_defaults(fn=cmd_build_seconds)
    p = sub.add_parser("rows")
    for name in ("log", "ann", "gt", "system", "dataset", "out"):
        p.add_argument("--" + name, required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--dim", type=int, required=True)
    p.add_argument("--build-seconds", type=float, required=True)
    p.add_argument("--param", type=int, required=True)
    p.set_defaults(fn=cmd_rows)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
