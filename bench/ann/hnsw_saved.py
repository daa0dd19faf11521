#!/usr/bin/env python3
"""hnswlib on a saved index, so that rounds of ours and hnswlib's can alternate without rebuilding.

    python3 bench/ann/hnsw_saved.py build BASE INDEX [--threads T] [--M 16] [--ef-construction 200]
        [--seed 100]
    python3 bench/ann/hnsw_saved.py bench BASE INDEX QUERIES GT --out CSV [--threads T]
        [--efs 16,24,32,48,64,96,128] [--k 10] [--runs 3] [--warm 256]
    python3 bench/ann/hnsw_saved.py serve BASE INDEX QUERIES GT [--threads T] [--k 10]
    python3 bench/ann/hnsw_saved.py degrees INDEX     # layer-0 out-degrees of a saved index

build: exactly cpu_peers.py's hnswlib build (`Index('l2')`, `init_index(n, ef_construction, M,
random_seed)`, `add_items(base, arange(n), num_threads=T)`), timed, then `save_index`.

bench: the protocol of `subgraph ann bench`, so that both sides are measured alike: for each ef
(`set_ef`; hnswlib searches with max(ef, k)), an untimed warm-up batch of the first --warm
queries, then --runs timed batches of all queries (`knn_query(..., num_threads=T)`); the best
batch gives QPS. recall@10 is |found[:10] & GT[:10]| / 10 averaged. Appends to CSV:
    system,device,vectors,dim,queries,k,ef,recall,qps,seconds,runs_seconds
(runs_seconds: every timed batch, ';'-separated).

serve: loads the index, prints {"ready": true}, then answers lines `EF RUNS WARM` on standard
input with one JSON line each: {"ef", "recall", "queries", "wall": [...], "cpu": [...]}, the wall
and process CPU seconds (time.process_time: every thread) of each timed batch, after an untimed
batch of the first WARM queries; for bench/ann/cpu_alternate.py.

degrees: hnswlib's file format (hnswalg.h saveIndex): a header, then per element
size_data_per_element bytes starting with the layer-0 link count (u16 in a u32).
"""

import argparse
import os
import struct
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import annio  # noqa: E402


def build(a):
    import hnswlib

    base = annio.read_fvecs(a.base)
    n, d = base.shape
    t0 = time.perf_counter()
    p = hnswlib.Index(space="l2", dim=d)
    p.init_index(max_elements=n, ef_construction=a.ef_construction, M=a.M, random_seed=a.seed)
    p.set_num_threads(a.threads)
    p.add_items(base, np.arange(n), num_threads=a.threads)
    s = time.perf_counter() - t0
    p.save_index(a.index)
    print(f"hnswlib: built n={n} dim={d} M={a.M} ef_construction={a.ef_construction} threads={a.threads} "
          f"in {s:.2f} s -> {a.index}", flush=True)


def bench(a):
    import hnswlib

    n, d = annio.fvecs_shape(a.base)
    queries = annio.read_fvecs(a.queries)
    gt = annio.read_ivecs(a.gt)
    p = hnswlib.Index(space="l2", dim=d)
    p.load_index(a.index, max_elements=n)
    p.set_num_threads(a.threads)
    m = queries.shape[0]
    rows = []
    for ef in a.efs:
        p.set_ef(ef)
        p.knn_query(queries[: a.warm], k=a.k, num_threads=a.threads)
        times, found = [], None
        for _ in range(a.runs):
            t0 = time.perf_counter()
            labels, _ = p.knn_query(queries, k=a.k, num_threads=a.threads)
            times.append(time.perf_counter() - t0)
            found = labels if found is None else found
        rec = annio.recall_at_k(found, gt, 10)
        best = min(times)
        print(f"hnswlib ef {ef:>4}  recall@10 {rec:.4f}  {m / best:>10.0f} queries/s", file=sys.stderr, flush=True)
        rows.append(f"hnswlib,cpu,{n},{d},{m},{a.k},{max(ef, a.k)},{rec:.5f},{m / best:.1f},{best:.6f},"
                    + ";".join(f"{t:.6f}" for t in times))
    new = not os.path.exists(a.out) or os.path.getsize(a.out) == 0
    with open(a.out, "a") as f:
        if new:
            f.write("system,device,vectors,dim,queries,k,ef,recall,qps,seconds,runs_seconds\n")
        f.write("\n".join(rows) + "\n")


def serve(a):
    import json

    import hnswlib

    n, d = annio.fvecs_shape(a.base)
    queries = annio.read_fvecs(a.queries)
    gt = annio.read_ivecs(a.gt)
    p = hnswlib.Index(space="l2", dim=d)
    p.load_index(a.index, max_elements=n)
    p.set_num_threads(a.threads)
    print(json.dumps({"ready": True, "threads": a.threads}), flush=True)
    for line in sys.stdin:
        ef, runs, warm = (int(x) for x in line.split())
        p.set_ef(ef)
        p.knn_query(queries[:warm], k=a.k, num_threads=a.threads)
        wall, cpu, found = [], [], None
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            labels, _ = p.knn_query(queries, k=a.k, num_threads=a.threads)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            found = labels if found is None else found
        rec = annio.recall_at_k(found, gt, 10)
        print(json.dumps({"ef": max(ef, a.k), "recall": round(rec, 5), "queries": int(queries.shape[0]),
                          "wall": wall, "cpu": cpu}), flush=True)


def degrees(a):
    with open(a.index, "rb") as f:
        head = f.read(8 * 6 + 4 + 4 + 8 * 3 + 8 + 8)
        (off0, maxel, count, size_el, label_off, off_data, maxlevel, entry, max_m, max_m0, m,
         mult, efc) = struct.unpack("<QQQQQQiIQQQdQ", head)
        level0 = np.frombuffer(f.read(count * size_el), dtype=np.uint8).reshape(count, size_el)
    deg = level0[:, off0:off0 + 4].copy().view(np.uint32)[:, 0] & 0xFFFF
    print(f"hnswlib index: {count} elements, M {m}, maxM0 {max_m0}, max level {maxlevel}, entry {entry}")
    print(f"layer-0 out-degree: mean {deg.mean():.2f}, median {np.median(deg):.0f}, "
          f"min {deg.min()}, max {deg.max()}, at maxM0 {np.mean(deg == max_m0):.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("base")
    b.add_argument("index")
    b.add_argument("--threads", type=int, default=os.cpu_count())
    b.add_argument("--M", type=int, default=16)
    b.add_argument("--ef-construction", type=int, default=200)
    b.add_argument("--seed", type=int, default=100)
    s = sub.add_parser("bench")
    for name in ("base", "index", "queries", "gt"):
        s.add_argument(name)
    s.add_argument("--out", required=True)
    s.add_argument("--threads", type=int, default=os.cpu_count())
    s.add_argument("--efs", default="16,24,32,48,64,96,128")
    s.add_argument("--k", type=int, default=10)
    s.add_argument("--runs", type=int, default=3)
    s.add_argument("--warm", type=int, default=256)
    v = sub.add_parser("serve")
    for name in ("base", "index", "queries", "gt"):
        v.add_argument(name)
    v.add_argument("--threads", type=int, default=os.cpu_count())
    v.add_argument("--k", type=int, default=10)
    g = sub.add_parser("degrees")
    g.add_argument("index")
    a = ap.parse_args()
    if a.cmd == "bench":
        a.efs = [int(x) for x in a.efs.split(",") if x.strip()]
    {"build": build, "bench": bench, "serve": serve, "degrees": degrees}[a.cmd](a)


if __name__ == "__main__":
    main()
