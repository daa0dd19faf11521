#!/usr/bin/env python3
"""CPU peers for the vector-search comparison: hnswlib and faiss (IndexHNSWFlat), squared L2.

    python3 bench/ann/cpu_peers.py BASE QUERIES GT --out CSV [--latency-out CSV2]
        [--systems hnswlib,faiss] [--threads 16] [--M 16] [--ef-construction 200]
        [--efs 10,16,24,32,48,64,96,128,192,256,384,512] [--k 10] [--repeat 3]
        [--latency-queries 1000] [--latency-recall 0.95] [--dataset NAME] [--seed 100]

BASE, QUERIES: .fvecs; GT: .ivecs with the ids of at least k exact nearest neighbours per query
(squared L2, nearest first), as `subgraph gen vectors` writes them.

For each system: the index is built once over BASE with --threads threads (timed: index
creation + adding all points; reading the files is not timed). Then for each ef in --efs
(hnswlib `set_ef`, faiss `hnsw.efSearch`; both search with max(ef, k)), all queries are
searched in ONE batch with --threads threads (hnswlib `knn_query(..., num_threads=T)`, faiss
`omp_set_num_threads(T)` + `index.search`), --repeat times; QPS = queries / median wall time of
a batch; recall@10 = mean |found[:10] & GT[:10]| / 10 (from the first run; searches are
deterministic).

M is hnswlib's M (and faiss' IndexHNSWFlat M): at most M links a vertex on the upper layers
and 2*M on the bottom layer in both libraries.

Main CSV (--out), appended to, one row per (system, dataset, ef):
    system,dataset,n,dim,build_seconds,param,recall_at_10,qps,batch,threads
  system   'hnswlib' (or 'chroma-hnswlib' when the module is Chroma's fork), 'faiss-hnsw'
  param    ef;  batch = number of queries;  threads = --threads

Latency CSV (--latency-out, default: --out with '-latency' before '.csv'), appended to, one row
per system: single-query latency with ONE thread at the smallest ef of the sweep whose
recall@10 >= --latency-recall (the largest ef if none reaches it: target_met = false). The
first --latency-queries queries are issued one at a time (a call per query, after 20 warm-up
calls); each call is timed with perf_counter, so Python's call overhead (a few us) is in it:
    system,dataset,n,dim,param,recall_at_10,queries,threads,median_us,p99_us,mean_us,
    target_recall,target_met
  recall_at_10 there is the batch recall at that ef; p99 is the nearest-rank 99th percentile.

With several systems each runs in its own child process (so that one library's thread pool
cannot disturb the other's timings). Only the standard library, numpy and the peer's module
are used; wrap the call in `timeout` to bound it.
"""

import argparse
import importlib.metadata as md
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import annio  # noqa: E402

LAT_COLUMNS = ["system", "dataset", "n", "dim", "param", "recall_at_10", "queries", "threads",
               "median_us", "p99_us", "mean_us", "target_recall", "target_met"]
SYSTEMS = ("hnswlib", "faiss")


def log(msg):
    print(f"[cpu_peers {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def dist_version(*names):
    for n in names:
        try:
            return n, md.version(n)
        except md.PackageNotFoundError:
            continue
    return None, None


class Hnswlib:
    def __init__(self, a):
        import hnswlib

        self.mod = hnswlib
        dist, ver = dist_version("hnswlib", "chroma-hnswlib")
        self.name = "chroma-hnswlib" if dist == "chroma-hnswlib" else "hnswlib"
        log(f"{self.name} {ver} from {hnswlib.__file__}")
        self.a = a

    def build(self, base):
        n, d = base.shape
        p = self.mod.Index(space="l2", dim=d)  # squared L2
        p.init_index(max_elements=n, ef_construction=self.a.ef_construction, M=self.a.M, random_seed=self.a.seed)
        p.set_num_threads(self.a.threads)
        p.add_items(base, np.arange(n), num_threads=self.a.threads)
        self.index = p

    def set_ef(self, ef):
        self.index.set_ef(ef)

    def search(self, q, k, threads):
        labels, _ = self.index.knn_query(q, k=k, num_threads=threads)
        return labels

    def single(self, q, k):
        return self.index.knn_query(q, k=k, num_threads=1)


class Faiss:
    def __init__(self, a):
        import faiss

        self.mod = faiss
        self.name = "faiss-hnsw"
        _, ver = dist_version("faiss-cpu", "faiss")
        opts = faiss.get_compile_options() if hasattr(faiss, "get_compile_options") else "?"
        log(f"faiss {ver} ({opts}) from {faiss.__file__}")
        self.a = a

    def build(self, base):
        self.mod.omp_set_num_threads(self.a.threads)
        idx = self.mod.IndexHNSWFlat(base.shape[1], self.a.M)  # METRIC_L2: squared L2
        idx.hnsw.efConstruction = self.a.ef_construction
        idx.add(base)
        self.index = idx

    def set_ef(self, ef):
        self.index.hnsw.efSearch = ef

    def search(self, q, k, threads):
        self.mod.omp_set_num_threads(threads)
        _, labels = self.index.search(q, k)
        return labels

    def single(self, q, k):
        return self.index.search(q, k)


def run_system(sysname, a):
    t0 = time.perf_counter()
    base = annio.read_fvecs(a.base)
    queries = annio.read_fvecs(a.queries)
    gt = annio.read_ivecs(a.gt)
    n, d = base.shape
    if queries.shape[1] != d:
        sys.exit(f"cpu_peers: queries have dimension {queries.shape[1]}, base {d}")
    if gt.shape[0] != queries.shape[0]:
        sys.exit(f"cpu_peers: {gt.shape[0]} ground-truth rows for {queries.shape[0]} queries")
    if gt.shape[1] < a.k:
        sys.exit(f"cpu_peers: ground truth has {gt.shape[1]} neighbours per query, fewer than k = {a.k}")
    dataset = a.dataset or annio.dataset_name(a.base)
    log(f"{dataset}: n={n} dim={d} queries={queries.shape[0]} gt_k={gt.shape[1]} (read in {time.perf_counter() - t0:.1f} s)")

    peer = Hnswlib(a) if sysname == "hnswlib" else Faiss(a)
    t0 = time.perf_counter()
    peer.build(base)
    build_s = time.perf_counter() - t0
    log(f"{peer.name}: built M={a.M} ef_construction={a.ef_construction} threads={a.threads} in {build_s:.2f} s")

    rows, sweep = [], []
    for ef in a.efs:
        peer.set_ef(ef)
        found, times = None, []
        for r in range(a.repeat):
            t0 = time.perf_counter()
            res = peer.search(queries, a.k, a.threads)
            times.append(time.perf_counter() - t0)
            if found is None:
                found = res
        rec = annio.recall_at_k(found, gt, 10)
        qps = queries.shape[0] / float(np.median(times))
        sweep.append((ef, rec))
        log(f"{peer.name}: ef={ef} recall@10={rec:.4f} qps={qps:.0f} (batch times {', '.join(f'{t:.4f}' for t in times)} s)")
        rows.append(dict(system=peer.name, dataset=dataset, n=n, dim=d, build_seconds=build_s, param=ef,
                         recall_at_10=rec, qps=qps, batch=queries.shape[0], threads=a.threads))
    annio.append_rows(a.out, rows)
    log(f"{peer.name}: {len(rows)} rows appended to {a.out}")

    if a.latency_queries > 0:
        ok = [(ef, r) for ef, r in sweep if r >= a.latency_recall]
        ef, rec = min(ok) if ok else max(sweep)
        peer.set_ef(ef)
        if sysname == "faiss":
            peer.mod.omp_set_num_threads(1)
        m = min(a.latency_queries, queries.shape[0])
        for i in range(min(20, m)):  # warm-up
            peer.single(queries[i : i + 1], a.k)
        lat = np.empty(m)
        for i in range(m):
            q = queries[i : i + 1]
            t0 = time.perf_counter()
            peer.single(q, a.k)
            lat[i] = time.perf_counter() - t0
        lat_us = np.sort(lat) * 1e6
        p99 = lat_us[max(0, int(np.ceil(0.99 * m)) - 1)]
        row = dict(system=peer.name, dataset=dataset, n=n, dim=d, param=ef, recall_at_10=rec, queries=m, threads=1,
                   median_us=float(np.median(lat_us)), p99_us=float(p99), mean_us=float(lat_us.mean()),
                   target_recall=a.latency_recall, target_met=str(bool(ok)).lower())
        annio.append_rows(a.latency_out, [row], LAT_COLUMNS)
        log(f"{peer.name}: single-query latency at ef={ef} (recall@10 {rec:.4f}{'' if ok else ', target NOT met'}): "
            f"median {row['median_us']:.1f} us, p99 {row['p99_us']:.1f} us over {m} queries -> {a.latency_out}")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base")
    ap.add_argument("queries")
    ap.add_argument("gt")
    ap.add_argument("--out", required=True, help="main CSV (appended)")
    ap.add_argument("--latency-out", help="latency CSV (appended; default: OUT with -latency)")
    ap.add_argument("--systems", default="hnswlib,faiss", help="comma-separated: hnswlib, faiss")
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--M", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=200)
    ap.add_argument("--efs", default="10,16,24,32,48,64,96,128,192,256,384,512")
    ap.add_argument("--k", type=int, default=10, help="neighbours asked for (recall is @10)")
    ap.add_argument("--repeat", type=int, default=3, help="timed batches per ef (QPS from the median)")
    ap.add_argument("--latency-queries", type=int, default=1000, help="0: no latency measurement")
    ap.add_argument("--latency-recall", type=float, default=0.95)
    ap.add_argument("--dataset", help="dataset name (default: from BASE's file name)")
    ap.add_argument("--seed", type=int, default=100, help="hnswlib's random_seed")
    a = ap.parse_args(argv)
    a.efs = [int(x) for x in a.efs.split(",") if x.strip()]
    a.systems = [s.strip() for s in a.systems.split(",") if s.strip()]
    bad = [s for s in a.systems if s not in SYSTEMS]
    if bad or not a.systems:
        ap.error(f"unknown system(s) {bad}; choose from {', '.join(SYSTEMS)}")
    if a.k < 10:
        ap.error("--k must be at least 10 (recall@10)")
    if not a.latency_out:
        root, ext = os.path.splitext(a.out)
        a.latency_out = root + "-latency" + (ext or ".csv")
    return a


def main():
    a = parse_args(sys.argv[1:])
    if len(a.systems) == 1:
        run_system(a.systems[0], a)
        return
    failed = []
    for s in a.systems:  # one child process per system
        args = [sys.executable, os.path.abspath(__file__)] + sys.argv[1:] + ["--systems", s]
        rc = subprocess.call(args)
        if rc != 0:
            log(f"{s}: FAILED with exit code {rc}")
            failed.append(s)
    if failed:
        sys.exit(f"cpu_peers: failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
