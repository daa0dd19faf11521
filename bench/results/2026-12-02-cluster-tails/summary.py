"""Summarises a T1/T2 log: per variant the summed and geometric-mean elapsed times over the
heavy queries, the ratios to --tail off and to one host, mismatches, incomplete runs, and the
queries where a variant is more than 15 % (and 2 ms) slower than off. The baseline is
cluster-off, or the variant named second (T3: cluster-gql).
Usage: python3 summary.py t2.log [cluster-gql]"""
import collections
import math
import sys

base = sys.argv[2] if len(sys.argv) > 2 else "cluster-off"
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 9 or not (f[0] == "one-host" or f[0].startswith("cluster-")) or f[4] == "ERROR":
        continue
    rows[(f[1], f[2])][f[0]] = dict(emb=int(f[4]), comp=f[5] == "True", el=float(f[6]), tail=int(f[8]))
variants = sorted({v for r in rows.values() for v in r if v.startswith("cluster-")})
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print(len(rows), "queries")
for k, r in rows.items():
    done = [r[v]["emb"] for v in r if r[v]["comp"]]
    if len(set(done)) > 1:
        print("MISMATCH", k, {v: r[v]["emb"] for v in r})
    for v in r:
        if not r[v]["comp"]:
            print("incomplete", v, k, r[v]["el"])
for v in variants:
    both = [r for r in rows.values() if v in r and base in r and "one-host" in r]
    tot = sum(r[v]["el"] for r in both)
    vs_off = [r[base]["el"] / r[v]["el"] for r in both]
    vs_one = [r[v]["el"] / r["one-host"]["el"] for r in both]
    tails = sum(1 for r in both if r[v]["tail"] > 0)
    print(f"{v}: {len(both)} queries, {tails} with a tail, summed {tot / 1e3:.1f} s; base/this geomean {geo(vs_off):.2f} "
          f"(min {min(vs_off):.2f}, max {max(vs_off):.1f}); this/one-host geomean {geo(vs_one):.2f}")
    for k, r in rows.items():
        if v in r and base in r and r[v]["el"] > 1.15 * r[base]["el"] and r[v]["el"] - r[base]["el"] > 2:
            print(f"   slower than the base: {k[0]} {k[1]} {r[base]['el']} -> {r[v]['el']} ms (tail {r[v]['tail']})")
print("one-host summed", round(sum(r["one-host"]["el"] for r in rows.values() if "one-host" in r) / 1e3, 2), "s")
