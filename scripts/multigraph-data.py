#!/usr/bin/env python3
"""A multigraph from a Sun & Luo .graph file (issue 39's GPU suite sets): the same vertices and
edges, and facts a graph of one label per vertex and one edge per pair would drop. Every third
vertex takes a second label, every fourth edge a parallel edge of another label, every seventh
vertex a self loop. Written as an edge list (`u v label`) and its label file (`id l1 l2`).

Usage: multigraph-data.py IN.graph OUT.el   (writes OUT.el and OUT.el.labels)
"""
import sys

src, out = sys.argv[1], sys.argv[2]
labels, edges = {}, []
for line in open(src):
    t = line.split()
    if t and t[0] == "v":
        labels[int(t[1])] = int(t[2])
    elif t and t[0] == "e":
        edges.append((int(t[1]), int(t[2]), int(t[3]) if len(t) > 3 else 0))
nl = max(labels.values()) + 1
with open(out, "w") as f:
    for u, v, l in edges:
        f.write(f"{u} {v} {l}\n")
        if (u + v) % 4 == 0:
            f.write(f"{u} {v} {l + 1}\n")
    for v in labels:
        if v % 7 == 0:
            f.write(f"{v} {v} 0\n")
with open(out + ".labels", "w") as f:
    for v, l in sorted(labels.items()):
        more = f" {(l + 1) % nl}" if v % 3 == 0 else ""
        f.write(f"{v} {l}{more}\n")
