#!/usr/bin/env python3
"""Compares `subgraph match --format json` reports query by query.

Usage: compare-counts.py ANSWERS CPU.jsonl GPU.jsonl [LABEL]

ANSWERS holds `name count` or `name:count` lines (name with or without `.graph` or `.cypher`),
or is `-`.
A query passes when both runs are complete, their counts are equal, and equal to the known
count where one is given. Prints one line per query and, last, `LABEL PASSED FAILED`.
"""
import json
import os
import sys


def known_counts(path):
    known = {}
    if path == "-":
        return known
    for line in open(path):
        line = line.strip().replace(":", " ")
        if line:
            name, count = line.split()
            known[name.removesuffix(".graph").removesuffix(".cypher")] = int(count)
    return known


def rows(path):
    out = {}
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            r = json.loads(line)
            out[os.path.basename(r["query"]).removesuffix(".graph").removesuffix(".cypher")] = r
    return out


def main():
    known = known_counts(sys.argv[1])
    cpu, gpu = rows(sys.argv[2]), rows(sys.argv[3])
    label = sys.argv[4] if len(sys.argv) > 4 else "counts"
    passed = failed = 0
    for q in sorted(set(cpu) | set(gpu)):
        c, g = cpu.get(q), gpu.get(q)
        if c is None or g is None:
            print(f"{q} missing on {'cpu' if c is None else 'gpu'} FAIL")
            failed += 1
            continue
        if not (c["complete"] and g["complete"]):
            print(f"{q} incomplete (cpu {c['embeddings']}, gpu {g['embeddings']}) SKIP")
            continue
        good = c["embeddings"] == g["embeddings"] == known.get(q, c["embeddings"])
        print(f"{q} cpu={c['embeddings']} gpu={g['embeddings']} known={known.get(q)} "
              f"cpu_ms={c['elapsed_ms']:.2f} gpu_ms={g['elapsed_ms']:.2f} device={g['device']} "
              f"{'OK' if good else 'FAIL'}")
        passed += good
        failed += not good
    if not cpu:
        failed += 1
    print(f"{label} {passed} {failed}")


if __name__ == "__main__":
    main()
