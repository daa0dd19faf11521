#!/usr/bin/env python3
"""Simulates choosing each query's order under a limit by the planner's sampled price.

    sim.py DIR EST ORDERS

DIR holds ORDER.jsonl.gz (subgraph match --format json --order ORDER, run-order.sh), EST the
estimates of limit_orders.rs (one JSON object per query: per order [cost, matches, price]),
ORDERS a comma-separated list, the default (gql) first. Per class: the median time of each
order alone, of the order of least price (pick-any), of the same where an estimate without
matches may only replace another without (pick-rel, the planner's rule), and of the best
order per query."""
import gzip, json, re, statistics as st, sys
from collections import defaultdict


def load(p):
    with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
        return {json.loads(l)["query"]: json.loads(l) for l in f}


d, e, orders = sys.argv[1], load(sys.argv[2]), sys.argv[3].split(",")
T = {o: load(f"{d}/{o}.jsonl.gz") for o in orders}
cls = defaultdict(list)
for q in T[orders[0]]:
    if all(q in T[o] for o in orders):
        m = re.search(r"data/(\w+)/query_graph/query_(\w+?_\d+)_\d+", q)
        cls[(m.group(1), m.group(2))].append(q)


def pick(q, rule):
    x = e[q]
    best, bp, brel = orders[0], x[orders[0]][2], x[orders[0]][1] > 0
    for o in orders[1:]:
        if o not in x:
            continue
        p, rel = x[o][2], x[o][1] > 0
        if p < bp and (rule == "any" or rel or not brel):
            best, bp, brel = o, p, rel
    return best


tot = defaultdict(float)
for k in sorted(cls, key=lambda k: (k[0], k[1].split("_")[0], int(k[1].split("_")[1]))):
    qs = cls[k]
    cols = {o: [T[o][q]["elapsed_ms"] for q in qs] for o in orders}
    for rule in ["any", "rel"]:
        cols["pick-" + rule] = [T[pick(q, rule)][q]["elapsed_ms"] for q in qs]
    cols["best"] = [min(T[o][q]["elapsed_ms"] for o in orders) for q in qs]
    for n, v in cols.items():
        tot[n] += sum(v)
    print("| %s | %s | " % k + " | ".join("%.2f" % st.median(v) for v in cols.values()) + " |")
print("| sum, s | | " + " | ".join("%.0f" % (v / 1e3) for v in tot.values()) + " |")
