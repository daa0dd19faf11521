#!/usr/bin/env python3
"""Convert a "t/v/e" text graph (Sun & Luo format) into BiGJoin's input.

BiGJoin (frankmcsherry/dataflow-join) reads graphs in graph-map's format: a prefix P names
two little-endian binary files,
    P.offsets  u64[n+1]  offsets[v]..offsets[v+1] is v's slice of P.targets (offsets[0] = 0)
    P.targets  u32[m]    the out-neighbours of each vertex, ascending
which is what graph-map's `parse` tool writes. Labels are dropped; self-loops and duplicate
edges are removed. The undirected graph is written either

    --mode sym  (default) each edge in both directions ("symmetrize"): BiGJoin's K3/K4
                dataflows then count ordered matches, i.e. embeddings (6x triangles,
                24x 4-cliques), the same number `subgraph match` reports;
    --mode lt   each edge once, from the smaller id to the larger ("undirect"): they count
                each triangle / 4-clique once (unordered). With --reorder, ids are first
                renumbered by ascending degree (graph-map's "reorder"), the usual
                orientation for clique counting.

--text also writes P.txt, one `src dst` line per directed edge written (the format of the
streaming `motif` example).

Usage: bigjoin-graph.py GRAPH PREFIX [--mode sym|lt] [--reorder] [--text]
"""
import argparse
import array
import sys


def read_tve(path):
    n = None
    edges = set()
    max_id = -1
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "t":
                n = int(p[1])
            elif p[0] == "v":
                max_id = max(max_id, int(p[1]))
            elif p[0] == "e":
                u, v = int(p[1]), int(p[2])
                if u == v:
                    continue
                if u > v:
                    u, v = v, u
                edges.add((u, v))
                max_id = max(max_id, v)
    n = max(n or 0, max_id + 1)
    return n, sorted(edges)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graph")
    ap.add_argument("prefix")
    ap.add_argument("--mode", choices=["sym", "lt"], default="sym")
    ap.add_argument("--reorder", action="store_true")
    ap.add_argument("--text", action="store_true")
    a = ap.parse_args()

    n, edges = read_tve(a.graph)
    if a.reorder:
        deg = [0] * n
        for u, v in edges:
            deg[u] += 1
            deg[v] += 1
        rename = [0] * n
        for new, old in enumerate(sorted(range(n), key=lambda x: (deg[x], x))):
            rename[old] = new
        edges = [(rename[u], rename[v]) for u, v in edges]
        edges = [(u, v) if u < v else (v, u) for u, v in edges]

    adj = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        if a.mode == "sym":
            adj[v].append(u)

    offsets = array.array("Q", [0])
    targets = array.array("I")
    for nbrs in adj:
        nbrs.sort()
        targets.extend(nbrs)
        offsets.append(len(targets))
    if sys.byteorder != "little":
        offsets.byteswap()
        targets.byteswap()
    with open(a.prefix + ".offsets", "wb") as f:
        offsets.tofile(f)
    with open(a.prefix + ".targets", "wb") as f:
        targets.tofile(f)
    if a.text:
        with open(a.prefix + ".txt", "w") as f:
            for u, nbrs in enumerate(adj):
                for v in nbrs:
                    f.write(f"{u} {v}\n")
    print(f"{a.prefix}: {n} vertices, {len(edges)} undirected edges, "
          f"{len(targets)} directed edges written (mode {a.mode}"
          f"{', reordered' if a.reorder else ''})", file=sys.stderr)


if __name__ == "__main__":
    main()
