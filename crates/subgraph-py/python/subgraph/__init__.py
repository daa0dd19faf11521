"""Exact subgraph matching: count and list every embedding of a query graph in a data graph.

    import subgraph
    data = subgraph.Graph.from_file("HPRD.graph")
    query = subgraph.Graph.from_edges([0, 1, 2], [1, 2, 0], vertex_labels=[1, 1, 1])
    subgraph.count(data, query).embeddings     # 126 triangles of label 1 in HPRD
    subgraph.match(data, query, limit=10)      # (n, k) array of data vertex ids
    subgraph.match(data, "MATCH (a:1)--(b)--(c:1)--(a) RETURN DISTINCT b")   # a pattern's rows

Semantics are the command line's (README, "Semantics"): embeddings (injective,
label-preserving, non-induced) by default for query graphs, homomorphisms for patterns (as
`match --pattern`), "embed", "induced" and "homomorphism" on request. Matching runs on every
CPU core with the GIL released; Ctrl-C stops it (KeyboardInterrupt).
"""

import numpy as np

from ._native import Graph, MatchBatches, Result, SubgraphError, explain, run_query_py

__all__ = [
    "Graph",
    "Result",
    "SubgraphError",
    "count",
    "match",
    "iter_matches",
    "explain",
    "from_networkx",
    "from_rustworkx",
    "from_igraph",
]


def _ids(values, name):
    array = np.asarray(values)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise SubgraphError(f"{name} must be a one-dimensional array of integers")
    return np.ascontiguousarray(array, dtype=np.int64)


def _from_edges(src, dst, vertex_labels=None, edge_labels=None, directed=False, num_vertices=None):
    """A graph with the edges src[i] - dst[i] (vertex numbers from 0; arrays or sequences of
    integers). It has num_vertices vertices, by default one more than the largest id or the
    number of vertex labels; vertex_labels holds one label per vertex (default 0) and
    edge_labels one per edge (default 0). Duplicate edges are merged and self-loops dropped."""
    src, dst = _ids(src, "src"), _ids(dst, "dst")
    labels = None if vertex_labels is None else _ids(vertex_labels, "vertex_labels")
    elabels = None if edge_labels is None else _ids(edge_labels, "edge_labels")
    if num_vertices is None:
        largest = max([int(a.max()) + 1 for a in (src, dst) if a.size] + [0])
        num_vertices = max(largest, 0 if labels is None else labels.size)
    return Graph.from_arrays(int(num_vertices), src, dst, labels, elabels, bool(directed))


Graph.from_edges = staticmethod(_from_edges)


def count(data, query, semantics=None, limit=None, timeout=None, threads=None, filter="auto", unique=False,
          device="auto", gpus=1):
    """Counts the matches of query in data (all of them, the first `limit`, or those found
    before `timeout` seconds) on `threads` threads (default: every core) after the candidate
    filter `filter` (as --filter): a Result, whose `complete` says whether the count is all.
    `query` is a Graph, or a pattern's text (openCypher's MATCH, a subset, as the command
    line's --pattern: README, "Patterns"), whose Result also holds `rows` (after RETURN,
    DISTINCT and LIMIT; 1 for count(*)) and `columns`. `semantics` is "embed" for a Graph and
    "homomorphism" for a pattern unless given ("embed", "induced" or "homomorphism").
    `device` is the command line's --device: "auto" (the GPU when one is usable, per query where
    its estimated cost is lower), "cpu" or "gpu" (SubgraphError when none is usable); the first
    GPU query of a data graph uploads it. Result.device says where it ran. `gpus` is the command
    line's --gpus: how many GPUs of this host (a positive number, or "all") the GPU side uses.
    With unique=True the Result also holds `automorphisms` (|Aut(query)|, query graphs only)
    and, when complete, `unique`: the distinct subgraphs, embeddings / |Aut(query)| (not for
    homomorphisms)."""
    return run_query_py(data, query, (semantics, limit, timeout, threads, filter, device, gpus), False, unique)[0]


def _table(data, words, width):
    """Data vertex numbers, `width` per row, as an (n, width) array of the data file's own ids."""
    table = words.reshape(-1, width)
    ids = data.original_ids()
    if ids is None:
        return table
    return np.asarray(ids, dtype=object if isinstance(ids, list) else np.uint64)[table]


def _count_row(count):
    """A count(*) pattern's one row: its count, as a (1, 1) array."""
    return np.array([[count]], dtype=np.uint64 if count < 2**64 else object)


def _pattern_rows(data, result, words):
    """A pattern's rows as match() gives them; words is None for a count(*) pattern."""
    if words is None:
        return _count_row(result.embeddings)
    if not result.columns:
        return np.zeros((result.rows, 0), dtype=np.uint32)
    return _table(data, words, len(result.columns))


def match(data, query, semantics=None, limit=None, timeout=None, threads=None, filter="auto", device="auto",
          gpus=1):
    """Every match of query in data (or the first `limit`; those found before `timeout`
    seconds) as an (n, k) array, row i holding the data vertex of each of the k query vertices.
    For a pattern's text, its rows as `--output` writes them: one column per RETURN column
    (Result.columns of count()), DISTINCT and LIMIT applied; a count(*) pattern gives its count
    as a (1, 1) array. The ids are the data file's own (uint64, or names in an object array)
    when it had sparse or named ids, else vertex numbers (uint32). Use count() for the count
    alone, which does not hold the matches in memory."""
    result, words = run_query_py(data, query, (semantics, limit, timeout, threads, filter, device, gpus), True, False)
    if isinstance(query, str):
        return _pattern_rows(data, result, words)
    return _table(data, words, query.num_vertices)


def iter_matches(data, query, semantics=None, limit=None, timeout=None, threads=None, filter="auto",
                 device="auto", gpus=1):
    """The matches (or a pattern's rows) as match() gives them, in batches of (m, k) arrays,
    while the query runs: memory stays bounded (the engine waits while the reader is a few
    batches behind), and leaving the loop early stops the query."""
    batches = MatchBatches(data, query, (semantics, limit, timeout, threads, filter, device, gpus))
    width = query.num_vertices if batches.columns is None else len(batches.columns)
    for words in batches:
        yield _table(data, words, width)
    if batches.count_star:
        yield _count_row(batches.result.embeddings)
    elif width == 0 and batches.result.rows:
        yield np.zeros((batches.result.rows, 0), dtype=np.uint32)


def from_networkx(graph, label="label", edge_label=None):
    """A Graph from a networkx graph, and the list of its nodes in vertex order (vertex i is
    nodes[i]). Node attribute `label` and edge attribute `edge_label` (when given) must be
    non-negative integers; a node or edge without it gets 0. Directed graphs stay directed."""
    nodes = list(graph.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    labels = [graph.nodes[node].get(label, 0) for node in nodes]
    edges = list(graph.edges(data=True))
    src = [index[u] for u, _, _ in edges]
    dst = [index[v] for _, v, _ in edges]
    elabels = None if edge_label is None else [d.get(edge_label, 0) for _, _, d in edges]
    built = _from_edges(src, dst, labels, elabels, graph.is_directed(), len(nodes))
    return built, nodes


def from_rustworkx(graph, label=None, edge_label=None):
    """A Graph from a rustworkx PyGraph or PyDiGraph, and the list of its node indices in
    vertex order (indices of removed nodes are skipped). `label` and `edge_label` give the
    labels (non-negative integers) from the node and edge payloads: None (all 0), a function of
    the payload, or a key of dict payloads (missing: 0)."""
    import rustworkx

    def labeller(how):
        if how is None:
            return lambda payload: 0
        if callable(how):
            return how
        return lambda payload: payload.get(how, 0) if isinstance(payload, dict) else 0

    vl, el = labeller(label), labeller(edge_label)
    nodes = list(graph.node_indices())
    index = {node: i for i, node in enumerate(nodes)}
    edges = list(graph.weighted_edge_list())
    return _from_edges(
        [index[u] for u, _, _ in edges],
        [index[v] for _, v, _ in edges],
        [vl(graph[n]) for n in nodes],
        None if edge_label is None else [el(w) for _, _, w in edges],
        isinstance(graph, rustworkx.PyDiGraph),
        len(nodes),
    ), nodes


def from_igraph(graph, label="label", edge_label=None):
    """A Graph from a python-igraph Graph, vertex i staying vertex i: vertex attribute `label`
    and edge attribute `edge_label` (when given; non-negative integers) are the labels, 0 where
    the attribute is absent."""
    edges = graph.get_edgelist()
    labels = graph.vs[label] if label in graph.vs.attributes() else None
    elabels = graph.es[edge_label] if edge_label is not None and edge_label in graph.es.attributes() else None
    return _from_edges(
        [u for u, _ in edges], [v for _, v in edges], labels, elabels, graph.is_directed(), graph.vcount()
    )
