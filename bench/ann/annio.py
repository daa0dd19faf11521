"""Shared I/O for the ANN peer benchmarks (standard library + numpy only).

Formats (the TEXMEX formats that `subgraph gen vectors` writes):
  .fvecs  per row: int32 dim, then dim float32
  .ivecs  per row: int32 k,   then k int32 (ground truth: ids of the exact nearest
          neighbours of each query under squared L2, nearest first)

CSV written by every peer script (one row per system, dataset and parameter):
  system,dataset,n,dim,build_seconds,param,recall_at_10,qps,batch,threads
The file is appended to; the header is written only when the file is new or empty.
"""

import csv
import os

import numpy as np

COLUMNS = ["system", "dataset", "n", "dim", "build_seconds", "param", "recall_at_10", "qps", "batch", "threads"]


def _read_vecs(path, dtype, mmap):
    raw = np.memmap(path, dtype=np.int32, mode="r") if mmap else np.fromfile(path, dtype=np.int32)
    if raw.size == 0:
        raise ValueError(f"{path}: empty file")
    d = int(raw[0])
    if d <= 0 or raw.size % (d + 1) != 0:
        raise ValueError(f"{path}: not a .fvecs/.ivecs file (first dim {d}, {raw.size * 4} bytes)")
    rows = raw.reshape(-1, d + 1)
    if not np.all(rows[:, 0] == d):
        raise ValueError(f"{path}: rows of different lengths (expected {d} everywhere)")
    return np.ascontiguousarray(rows[:, 1:]).view(dtype)


def read_fvecs(path, mmap=False):
    """(n, dim) float32, C-contiguous."""
    return _read_vecs(path, np.float32, mmap)


def read_ivecs(path, mmap=False):
    """(n, k) int32, C-contiguous."""
    return _read_vecs(path, np.int32, mmap)


def fvecs_shape(path):
    """(n, dim) of an .fvecs/.ivecs file from its size and first header, without reading it."""
    with open(path, "rb") as f:
        head = f.read(4)
    if len(head) != 4:
        raise ValueError(f"{path}: empty file")
    d = int(np.frombuffer(head, dtype=np.int32)[0])
    size = os.path.getsize(path)
    if d <= 0 or size % (4 * (d + 1)) != 0:
        raise ValueError(f"{path}: not a .fvecs/.ivecs file (first dim {d}, {size} bytes)")
    return size // (4 * (d + 1)), d


def write_fvecs(path, x):
    x = np.asarray(x, dtype=np.float32)
    n, d = x.shape
    out = np.empty((n, d + 1), dtype=np.int32)
    out[:, 0] = d
    out[:, 1:] = x.view(np.int32)
    out.tofile(path)


def write_ivecs(path, x):
    x = np.asarray(x, dtype=np.int32)
    n, k = x.shape
    out = np.empty((n, k + 1), dtype=np.int32)
    out[:, 0] = k
    out[:, 1:] = x
    out.tofile(path)


def recall_at_k(found, truth, k=10):
    """Mean over queries of |found[:k] & truth[:k]| / k (ids; -1 or out-of-range ids never match)."""
    found = np.asarray(found)[:, :k].astype(np.int64)
    truth = np.asarray(truth)
    if truth.shape[1] < k:
        raise ValueError(f"ground truth has {truth.shape[1]} neighbours per query, fewer than k = {k}")
    if found.shape[0] != truth.shape[0]:
        raise ValueError(f"{found.shape[0]} result rows but {truth.shape[0]} ground-truth rows")
    truth = truth[:, :k].astype(np.int64)
    hits = 0
    for s in range(0, truth.shape[0], 65536):  # each true neighbour counts once, duplicates in found do not
        t, f = truth[s : s + 65536], found[s : s + 65536]
        hits += int((t[:, :, None] == f[:, None, :]).any(axis=2).sum())
    return hits / (k * truth.shape[0])


def dataset_name(base_path):
    """Dataset name from the base file: sift_base.fvecs / sift-base.fvecs / sift/base.fvecs -> sift."""
    stem = os.path.basename(base_path)
    for ext in (".fvecs", ".bvecs"):
        if stem.endswith(ext):
            stem = stem[: -len(ext)]
    for suffix in ("_base", "-base", ".base"):
        if stem.endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    if stem == "base":
        parent = os.path.basename(os.path.dirname(os.path.abspath(base_path)))
        return parent or stem
    return stem


def append_rows(path, rows, columns=COLUMNS):
    """Append dict rows to a CSV, writing the header only if the file is new or empty."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="raise")
        if new:
            w.writeheader()
        for r in rows:
            w.writerow({c: _fmt(r[c]) for c in columns})


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}" if abs(v) < 1e5 else f"{v:.1f}"
    return v
