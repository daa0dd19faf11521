"""Vector search over proximity graphs (GANNS and GGraphCon, Yu's thesis ch. 4), on a GPU
where one is usable and on every CPU core otherwise, with the same answers.

    import numpy as np, subgraph.ann
    x = np.random.rand(100_000, 128).astype(np.float32)
    index = subgraph.ann.Index.build(x, metric="l2", graph="hnsw", degree=32)
    ids, dists = index.search(x[:5], k=10)          # two (5, 10) arrays, nearest first
    index.add(more); index.save("x.sgi"); subgraph.ann.Index.load("x.sgi")

Distances are "smaller is nearer", as hnswlib reports them: "l2" is the squared Euclidean
distance, "ip" is 1 - a.b, "cos" is 1 - cosine. Ids are row numbers in the order the vectors
were given, across `add`; where fewer than k vectors pass a filter, a row ends with id -1 at
distance inf. Recall is the caller's to measure: `brute_force` gives the exact answer.
"""

import numpy as _np

from ._native import AnnIndex as _AnnIndex
from ._native import SubgraphError

__all__ = ["Index", "SubgraphError"]


def _rows(x, name):
    array = _np.asarray(x)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    if array.ndim != 2:
        raise SubgraphError(f"{name} must be a two-dimensional array (rows of vectors)")
    if array.dtype != _np.float32 and not _np.issubdtype(array.dtype, _np.number):
        raise SubgraphError(f"{name} must hold numbers, not {array.dtype}")
    return _np.ascontiguousarray(array, dtype=_np.float32)


def _labels(labels, name):
    if labels is None:
        return None
    array = _np.asarray(labels)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1 or (array.size and not _np.issubdtype(array.dtype, _np.integer)):
        raise SubgraphError(f"{name} must be a one-dimensional array of integers")
    return _np.ascontiguousarray(array, dtype=_np.int64)


class Index:
    """A proximity-graph index of float32 vectors."""

    def __init__(self, native):
        self._native = native

    @staticmethod
    def build(
        x,
        metric="l2",
        graph="hnsw",
        degree=32,
        device="auto",
        threads=None,
        labels=None,
        d_min=None,
        ef_construction=None,
        prune="diverse",
        seed=0x5EED,
        gpus=1,
    ):
        """Builds an index over the rows of `x` ((n, d) array, converted to float32).

        graph: "nsw", "hnsw" or "knn"; degree: the out-degree bound (d_min, the links each
        vector makes, is five eighths of it unless given; ef_construction, the construction's
        exploration bound, 128 or d_min where larger unless given); labels: one integer per row, for filtered
        search; device: "auto", "cpu" or "gpu"; threads: CPU threads (default: every core)."""
        native = _AnnIndex.build(
            _rows(x, "x"), metric, graph, degree, d_min, ef_construction, prune,
            _labels(labels, "labels"), seed, device, gpus, threads,
        )
        return Index(native)

    @staticmethod
    def load(path, device="auto", gpus=1):
        """Reads an index written by `save` (the file is validated: version, sizes, checksum)."""
        return Index(_AnnIndex.load(str(path), device, gpus))

    def _filter(self, filter):
        if filter is None:
            return None, None
        array = _np.asarray(filter)
        if array.dtype == _np.bool_:
            if array.ndim != 1:
                raise SubgraphError("a filter mask must be one-dimensional: one entry per vector")
            return None, _np.ascontiguousarray(array)
        return _labels(array, "filter"), None

    def search(self, q, k=10, ef=None, threads=None, filter=None, precision="single"):
        """The k nearest vectors of each row of `q`: (ids, distances), two (m, k) arrays (int64
        and float32), nearest first. ef: the exploration bound (default max(k, 64)), the
        recall/speed knob. filter: a boolean array (one per vector: True passes) or the labels
        that pass. precision: "single" (the rows as given) or "half" (the GPU search only: it
        reads the rows in half precision, then ranks the first ef it found by their exact
        distances, which are the distances returned)."""
        labels, mask = self._filter(filter)
        return self._native.search(_rows(q, "q"), k, ef, labels, mask, False, threads, precision)

    def brute_force(self, q, k=10, threads=None, filter=None):
        """The exact k nearest vectors of each row of `q`, as `search` returns them."""
        labels, mask = self._filter(filter)
        return self._native.search(_rows(q, "q"), k, None, labels, mask, True, threads, "single")

    def add(self, x, labels=None, threads=None):
        """Adds the rows of `x`; their ids continue from len(index). Labels are required (one
        per row) where the index has labels, refused where it has none."""
        self._native.add(_rows(x, "x"), _labels(labels, "labels"), threads)

    def save(self, path):
        """Writes the index to `path` (.sgi: versioned and checksummed)."""
        self._native.save(str(path))

    def __len__(self):
        return len(self._native)

    @property
    def dim(self):
        return self._native.dim

    @property
    def metric(self):
        return self._native.metric

    @property
    def graph(self):
        return self._native.graph

    @property
    def degree(self):
        return self._native.degree

    @property
    def device(self):
        """Where searches run: "cpu", "gpu" or "gpu x N"."""
        return self._native.device

    def __repr__(self):
        return f"subgraph.ann.Index({len(self)} vectors of dimension {self.dim}, {self.metric}, {self.graph} of degree {self.degree}, {self.device})"
