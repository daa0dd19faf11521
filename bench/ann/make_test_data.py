#!/usr/bin/env python3
"""Small test data for the ANN peer scripts, in the formats `subgraph gen vectors` writes.

    python3 bench/ann/make_test_data.py OUT_DIR [--name toy] [--n 20000] [--nq 1000] [--dim 128]
        [--k 100] [--clusters 64] [--seed 1]

writes OUT_DIR/NAME_base.fvecs, NAME_query.fvecs and NAME_groundtruth.ivecs (ids of the k exact
nearest neighbours of each query under squared L2, nearest first, by brute force with numpy).
Points are Gaussian clusters so that graph search has some structure to exploit. For local
testing of the scripts only; the benchmark data comes from `subgraph gen vectors`.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import annio  # noqa: E402


def exact_knn(base, queries, k, chunk=1024):
    norms = np.einsum("ij,ij->i", base, base)
    out = np.empty((queries.shape[0], k), dtype=np.int32)
    for s in range(0, queries.shape[0], chunk):
        q = queries[s : s + chunk].astype(np.float64)
        d = norms[None, :] - 2.0 * (q @ base.T.astype(np.float64))  # + |q|^2, the same for a row
        part = np.argpartition(d, k - 1, axis=1)[:, :k]
        dd = np.take_along_axis(d, part, axis=1)
        order = np.argsort(dd, axis=1, kind="stable")
        out[s : s + chunk] = np.take_along_axis(part, order, axis=1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--name", default="toy")
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--nq", type=int, default=1000)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--clusters", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    centres = rng.normal(0.0, 4.0, size=(a.clusters, a.dim))

    def draw(m):
        return (centres[rng.integers(0, a.clusters, m)] + rng.normal(0.0, 1.0, size=(m, a.dim))).astype(np.float32)

    base, queries = draw(a.n), draw(a.nq)
    gt = exact_knn(base.astype(np.float64), queries, min(a.k, a.n))
    os.makedirs(a.out_dir, exist_ok=True)
    p = os.path.join(a.out_dir, a.name)
    annio.write_fvecs(p + "_base.fvecs", base)
    annio.write_fvecs(p + "_query.fvecs", queries)
    annio.write_ivecs(p + "_groundtruth.ivecs", gt)
    print(f"wrote {p}_base.fvecs ({a.n} x {a.dim}), {p}_query.fvecs ({a.nq}), {p}_groundtruth.ivecs (k={gt.shape[1]})")


if __name__ == "__main__":
    main()
