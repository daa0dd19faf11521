"""The Python package against the Python anchors (issue 11): networkx's VF2 (GraphMatcher),
igraph's LAD and igraph's VF2 count the embeddings of Sun & Luo queries beside subgraph.count,
each within a time limit; and the binding's overhead: a count() call's wall time against the query's own
elapsed_ms, and against the CLI's elapsed_ms for the same query.

    python bench/python-anchors.py DATA_DIR OUT_DIR [--sets yeast hprd] [--classes dense_8 ...]
        [--queries 5] [--timeout 5] [--cli target/release/subgraph]

DATA_DIR holds <set>/data_graph/<set>.graph and <set>/query_graph/ (../shared/data). Writes
OUT_DIR/anchors.csv and OUT_DIR/overhead.csv and prints markdown summaries.
"""

import argparse
import csv
import json
import multiprocessing
import queue
import pathlib
import signal
import statistics
import subprocess
import time

import igraph
import networkx as nx
from networkx.algorithms import isomorphism

import subgraph


def read_sunluo(path):
    """Vertex labels and edges of a Sun & Luo .graph file."""
    labels, edges = [], []
    for line in open(path):
        parts = line.split()
        if parts and parts[0] == "v":
            labels.append(int(parts[2]))
        elif parts and parts[0] == "e":
            edges.append((int(parts[1]), int(parts[2])))
    return labels, edges


class Timeout(Exception):
    pass


def networkx_count(g, h, limit_s):
    """Monomorphisms by networkx's VF2, or None past limit_s (SIGALRM stops the Python loop)."""

    def alarm(*_):
        raise Timeout()

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        nm = isomorphism.categorical_node_match("label", None)
        return sum(1 for _ in isomorphism.GraphMatcher(g, h, node_match=nm).subgraph_monomorphisms_iter())
    except Timeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def igraph_count(method, g, labels, h, q_labels, limit_s):
    """Non-induced subisomorphisms (monomorphisms) by igraph's LAD (`method` "lad", with label
    domains) or VF2 ("vf2", with colours; igraph's VF2 subisomorphisms are not induced), and
    the call's own milliseconds, or None past limit_s. The call runs in a forked child that is
    killed at the limit (igraph 1.0's calls take no time limit, and C code does not see
    SIGALRM); the child times it."""
    if method == "lad":
        by_label = {}
        for v, label in enumerate(labels):
            by_label.setdefault(label, []).append(v)
        domains = [by_label.get(label, []) for label in q_labels]
        if any(not d for d in domains):
            return 0, 0.0
        call = lambda: len(g.get_subisomorphisms_lad(h, domains, False))  # noqa: E731
    else:
        call = lambda: g.count_subisomorphisms_vf2(h, color1=labels, color2=q_labels)  # noqa: E731
    ctx = multiprocessing.get_context("fork")
    result = ctx.Queue()
    child = ctx.Process(target=lambda: result.put(timed(call)))
    child.start()
    try:
        return result.get(timeout=limit_s)
    except queue.Empty:
        return None, None
    finally:
        child.kill()
        child.join()


def timed(f):
    start = time.perf_counter()
    out = f()
    return out, (time.perf_counter() - start) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--sets", nargs="+", default=["yeast", "hprd"])
    ap.add_argument("--classes", nargs="+", default=["dense_8", "sparse_8", "dense_16"])
    ap.add_argument("--queries", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--cli", default="target/release/subgraph")
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    anchors, overhead = [], []
    for name in a.sets:
        base = pathlib.Path(a.data) / name
        data_path = base / "data_graph" / f"{name}.graph"
        data = subgraph.Graph.from_file(str(data_path))
        labels, edges = read_sunluo(data_path)
        g_nx = nx.Graph()
        g_nx.add_nodes_from((v, {"label": lab}) for v, lab in enumerate(labels))
        g_nx.add_edges_from(edges)
        g_ig = igraph.Graph(n=len(labels), edges=edges)
        for cls in a.classes:
            paths = sorted((base / "query_graph").glob(f"query_{cls}_*.graph"), key=lambda p: int(p.stem.split("_")[-1]))
            paths = paths[: a.queries]
            cli = subprocess.run([a.cli, "match", "-q", "--format", "json", "--device", "cpu", str(data_path)]
                                 + [str(p) for p in paths], capture_output=True, text=True, check=True)
            cli_ms = {json.loads(line)["query"]: json.loads(line)["elapsed_ms"] for line in cli.stdout.splitlines()}
            for p in paths:
                q = subgraph.Graph.from_file(str(p))
                subgraph.count(data, q)  # warm: the first call of a process pays its page faults
                r, wall = timed(lambda: subgraph.count(data, q))
                overhead.append({"set": name, "query": p.stem, "wall_ms": wall, "own_elapsed_ms": r.elapsed_ms,
                                 "cli_elapsed_ms": cli_ms[str(p)]})
                q_labels, q_edges = read_sunluo(p)
                h_nx = nx.Graph()
                h_nx.add_nodes_from((v, {"label": lab}) for v, lab in enumerate(q_labels))
                h_nx.add_edges_from(q_edges)
                n_nx, t_nx = timed(lambda: networkx_count(g_nx, h_nx, a.timeout))
                h_ig = igraph.Graph(n=len(q_labels), edges=q_edges)
                n_lad, t_lad = igraph_count("lad", g_ig, labels, h_ig, q_labels, a.timeout)
                n_vf2, t_vf2 = igraph_count("vf2", g_ig, labels, h_ig, q_labels, a.timeout)
                row = {"set": name, "class": cls, "query": p.stem, "embeddings": r.embeddings, "subgraph_ms": wall,
                       "networkx_ms": t_nx if n_nx is not None else None, "networkx_count": n_nx,
                       "lad_ms": t_lad if n_lad is not None else None, "lad_count": n_lad,
                       "igraph_vf2_ms": t_vf2 if n_vf2 is not None else None, "igraph_vf2_count": n_vf2}
                for k in ("networkx_count", "lad_count", "igraph_vf2_count"):
                    if row[k] is not None and row[k] != r.embeddings:
                        raise SystemExit(f"{name} {p.stem}: {k} {row[k]} but subgraph counts {r.embeddings}")
                anchors.append(row)
                print(json.dumps(row), flush=True)
    for rows, file in ((anchors, "anchors.csv"), (overhead, "overhead.csv")):
        with open(out / file, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    print("\n| set | class | queries | subgraph median ms | networkx done, median ms, speed-up "
          "| LAD done, median ms, speed-up | igraph VF2 done, median ms, speed-up |")
    print("|---|---|---:|---:|---|---|---|")
    for name in a.sets:
        for cls in a.classes:
            rows = [r for r in anchors if r["set"] == name and r["class"] == cls]
            ours = statistics.median(r["subgraph_ms"] for r in rows)
            cells = []
            for k in ("networkx_ms", "lad_ms", "igraph_vf2_ms"):
                done = [r for r in rows if r[k] is not None]
                if not done:
                    cells.append(f"0 of {len(rows)} (all past {a.timeout:g} s)")
                    continue
                theirs = statistics.median(r[k] for r in done)
                speed = statistics.median(r[k] / r["subgraph_ms"] for r in done)
                cells.append(f"{len(done)} of {len(rows)}, {theirs:.1f}, {speed:.0f}x")
            print(f"| {name} | {cls} | {len(rows)} | {ours:.2f} | {' | '.join(cells)} |")
    extra = [r["wall_ms"] - r["own_elapsed_ms"] for r in overhead]
    vs_cli = [r["wall_ms"] - r["cli_elapsed_ms"] for r in overhead]
    within = sum(r["wall_ms"] <= max(1.1 * r["cli_elapsed_ms"], r["cli_elapsed_ms"] + 0.1) for r in overhead)
    print(f"\nBinding overhead (wall - own elapsed_ms): median {statistics.median(extra):.3f} ms, max {max(extra):.3f} ms.")
    print(f"Wall against the CLI's elapsed_ms: median {statistics.median(vs_cli):+.3f} ms; "
          f"{within} of {len(overhead)} within 10% or 0.1 ms.")


if __name__ == "__main__":
    main()
