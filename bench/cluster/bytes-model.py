#!/usr/bin/env python3
"""The byte model of a cluster query, fitted to bytes.sh's measurements and checked on them.

    bytes-model.py BYTES.csv [FIT_MAX]

With P processes of one worker thread each, the bytes a query sends are

    bytes(P) = (P - 1) * a  +  P * (P - 1) * b  +  (P - 1) / P * m

- a: what every process sends every other once: its candidate sets, each exchange (NLF's,
  then each round of GQL's refinement: 4 bytes an id), and its share of the held lists
  (12 bytes an edge, each edge from one end). Each process receives about a, whatever P.
- b: what every worker sends every other worker of another process, per query: 4 bytes a
  candidate set's header per query vertex and exchange, 12 per held position's size.
- m: the routed search's partial matches (4 bytes a vertex id, prefix and candidates) if every
  hop crossed processes; a hop stays home with chance 1/P under hash partitioning.

Each query is fitted by the terms its search uses: a held search (every list a later position
reads is held: no partial match is sent) by a and b, m = 0; a routed one by a and m, b = 0 (b
is a few hundred bytes, m hundreds of megabytes). The two terms are solved from the runs at
P = 2 .. FIT_MAX (default 4, least squares by the normal equations), and the runs above
FIT_MAX are predicted. Prints per query the fitted terms, each P's measured and predicted bytes
and the relative error.
"""
import csv
import sys
from collections import defaultdict


def terms(p, routed):
    """The coefficients of (a, b, m) at P processes, b or m left out."""
    return [p - 1, (p - 1) / p] if routed else [p - 1, p * (p - 1)]


def solve(rows, ys):
    """Least squares by the normal equations, Gaussian elimination with partial pivoting."""
    n = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * y for r, y in zip(rows, ys))] for i in range(n)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main():
    path = sys.argv[1]
    fit_max = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    runs = defaultdict(dict)
    routed = {}
    for r in csv.DictReader(open(path)):
        runs[r["name"]][int(r["processes"])] = int(r["bytes_sent"])
        if int(r["processes"]) >= 2:
            routed[r["name"]] = r["search"] == "routed"
    print("query,a,b,m,P,measured,predicted,error")
    for name, by_p in runs.items():
        fit = [p for p in sorted(by_p) if 2 <= p <= fit_max]
        if len(fit) < 2:
            continue
        r = routed[name]
        a, other = solve([terms(p, r) for p in fit], [by_p[p] for p in fit])
        b, m = (0.0, other) if r else (other, 0.0)
        for p in sorted(by_p):
            if p < 2:
                continue
            pred = sum(t * c for t, c in zip(terms(p, r), (a, other)))
            err = (pred - by_p[p]) / by_p[p]
            print(f"{name},{a:.0f},{b:.1f},{m:.0f},{p},{by_p[p]},{pred:.0f},{err:+.4f}")


if __name__ == "__main__":
    main()
