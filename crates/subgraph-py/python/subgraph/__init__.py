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
CPU core with the GIL released; Ctrl-C stops it (KeyboardInterrupt). `subgraph.nx` holds
drop-in replacements for networkx's subgraph matchers; `subgraph.Client` asks a server
(`subgraph serve`) instead.
"""

from importlib.metadata import version as _version

import numpy as _np

from . import _native
from ._native import Graph, Result, SubgraphError, explain
from ._client import Client, ServerError

# `nx` is left out, so that `from subgraph import *` does not take the name networkx goes by.
__all__ = [
    "Client",
    "Graph",
    "Result",
    "ServerError",
    "SubgraphError",
    "count",
    "match",
    "iter_matches",
    "explain",
    "from_networkx",
    "from_rustworkx",
    "from_igraph",
]

__version__ = _version("subgraph")

_MAX_LABEL = 2**32 - 1


def _ids(values, name):
    array = _np.asarray(values)
    if array.ndim != 1 or (array.size and not _np.issubdtype(array.dtype, _np.integer)):
        raise SubgraphError(f"{name} must be a one-dimensional array of integers")
    return _np.ascontiguousarray(array, dtype=_np.int64)


def _labels(values, what, item):
    """One label per vertex or edge as Graph.from_arrays takes them: an int64 array where all
    are integers, else, where some are strings (label names), all of them as strings (integers
    as their digits, as in a file). `what` names the labels and item(i) the i-th in errors."""
    array = _np.asarray(values)
    if array.ndim != 1:
        raise SubgraphError(f"{what} must be a one-dimensional sequence of labels")
    if array.size == 0 or _np.issubdtype(array.dtype, _np.integer):
        bad = _np.flatnonzero((array < 0) | (array > _MAX_LABEL))
        if bad.size:
            raise SubgraphError(f"{item(bad[0])} is {array[bad[0]]}, not a label (an integer 0..2^32 - 1 or a string)")
        return _np.ascontiguousarray(array, dtype=_np.int64)
    words = []
    for i, x in enumerate(values.tolist() if isinstance(values, _np.ndarray) else values):
        if isinstance(x, str):
            words.append(x)
        elif isinstance(x, (int, _np.integer)) and not isinstance(x, (bool, _np.bool_)) and 0 <= x <= _MAX_LABEL:
            words.append(str(int(x)))
        else:
            raise SubgraphError(f"{item(i)} is {x!r}, not a label (an integer 0..2^32 - 1 or a string)")
    return words


def _from_edges(src, dst, vertex_labels=None, edge_labels=None, directed=False, num_vertices=None):
    """A graph with the edges src[i] - dst[i] (vertex numbers from 0; arrays or sequences of
    integers). It has num_vertices vertices, by default one more than the largest id or the
    number of vertex labels; vertex_labels holds one label per vertex (default 0) and
    edge_labels one per edge (default 0): integers 0..2^32 - 1, or strings, which make the
    labels of their kind names (numbered 0..k in byte order, integers named by their digits,
    as a file's label names). Duplicate edges are merged and self-loops dropped."""
    return _build(src, dst, vertex_labels, edge_labels, directed, num_vertices,
                  ("vertex_labels", lambda i: f"vertex_labels[{i}]"), ("edge_labels", lambda i: f"edge_labels[{i}]"))


def _build(src, dst, vertex_labels, edge_labels, directed, num_vertices, vertex, edge):
    """Graph.from_edges, where vertex and edge are (what, item) of _labels for the errors."""
    src, dst = _ids(src, "src"), _ids(dst, "dst")
    labels = None if vertex_labels is None else _labels(vertex_labels, *vertex)
    elabels = None if edge_labels is None else _labels(edge_labels, *edge)
    if num_vertices is None:
        largest = max([int(a.max()) + 1 for a in (src, dst) if a.size] + [0])
        num_vertices = max(largest, 0 if labels is None else len(labels))
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
    homomorphisms). `limit` and `threads` are at least 1. A `query` of another type is a
    TypeError, an unknown name (semantics, filter, device) a SubgraphError listing the names."""
    args = _native.QueryArgs(semantics, limit, timeout, threads, filter, device, gpus)
    return _native.run_query_py(data, query, args, False, unique)[0]


def _table(data, words, width):
    """Data vertex numbers, `width` per row, as an (n, width) array of the data file's own ids."""
    table = words.reshape(-1, width)
    ids = data.original_ids()
    if ids is None:
        return table
    return _np.asarray(ids, dtype=object if isinstance(ids, list) else _np.uint64)[table]


def _count_row(count):
    """A count(*) pattern's one row: its count, as a (1, 1) array."""
    return _np.array([[count]], dtype=_np.uint64 if count < 2**64 else object)


def _pattern_rows(data, result, words):
    """A pattern's rows as match() gives them; words is None for a count(*) pattern."""
    if words is None:
        return _count_row(result.embeddings)
    if not result.columns:
        return _np.zeros((result.rows, 0), dtype=_np.uint32)
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
    args = _native.QueryArgs(semantics, limit, timeout, threads, filter, device, gpus)
    result, words = _native.run_query_py(data, query, args, True, False)
    if isinstance(query, str):
        return _pattern_rows(data, result, words)
    return _table(data, words, query.num_vertices)


def iter_matches(data, query, semantics=None, limit=None, timeout=None, threads=None, filter="auto",
                 device="auto", gpus=1):
    """The matches (or a pattern's rows) as match() gives them, in batches of (m, k) arrays,
    while the query runs: memory stays bounded (the engine waits while the reader is a few
    batches behind), and leaving the loop early stops the query."""
    args = _native.QueryArgs(semantics, limit, timeout, threads, filter, device, gpus)
    batches = _native.MatchBatches(data, query, args)
    width = query.num_vertices if batches.columns is None else len(batches.columns)
    for words in batches:
        yield _table(data, words, width)
    if batches.count_star:
        yield _count_row(batches.result.embeddings)
    elif width == 0 and batches.result.rows:
        yield _np.zeros((batches.result.rows, 0), dtype=_np.uint32)


def from_networkx(graph, label="label", edge_label=None):
    """A Graph from a networkx graph, and the list of its nodes in vertex order (vertex i is
    nodes[i]). Node attribute `label` and edge attribute `edge_label` (when given) are the
    labels: integers 0..2^32 - 1, or strings, which make that kind of label names (as a file's
    label names; queries match data by name); a node or edge without it gets 0. Directed
    graphs stay directed."""
    nodes = list(graph.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    labels = [graph.nodes[node].get(label, 0) for node in nodes]
    edges = list(graph.edges(data=True))
    src = [index[u] for u, _, _ in edges]
    dst = [index[v] for _, v, _ in edges]
    elabels = None if edge_label is None else [d.get(edge_label, 0) for _, _, d in edges]
    node_attr, edge_attr = f"node attribute {label!r}", f"edge attribute {edge_label!r}"
    built = _build(src, dst, labels, elabels, graph.is_directed(), len(nodes),
                   (node_attr, lambda i: f"{node_attr} of node {nodes[i]!r}"),
                   (edge_attr, lambda i: f"{edge_attr} of edge {edges[i][:2]!r}"))
    return built, nodes


def from_rustworkx(graph, label=None, edge_label=None):
    """A Graph from a rustworkx PyGraph or PyDiGraph, and the list of its node indices in
    vertex order (indices of removed nodes are skipped). `label` and `edge_label` give the
    labels (integers 0..2^32 - 1, or strings, as from_networkx takes them) from the node and
    edge payloads: None (all 0), a function of the payload, or a key of dict payloads (missing:
    0)."""
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
    return _build(
        [index[u] for u, _, _ in edges],
        [index[v] for _, v, _ in edges],
        [vl(graph[n]) for n in nodes],
        None if edge_label is None else [el(w) for _, _, w in edges],
        isinstance(graph, rustworkx.PyDiGraph),
        len(nodes),
        ("node labels", lambda i: f"the label of node {nodes[i]}"),
        ("edge labels", lambda i: f"the label of edge {edges[i][:2]}"),
    ), nodes


def from_igraph(graph, label="label", edge_label=None):
    """A Graph from a python-igraph Graph, vertex i staying vertex i: vertex attribute `label`
    and edge attribute `edge_label` (when given; integers 0..2^32 - 1, or strings, as
    from_networkx takes them) are the labels, 0 where the attribute is absent."""
    edges = graph.get_edgelist()
    labels = graph.vs[label] if label in graph.vs.attributes() else None
    elabels = graph.es[edge_label] if edge_label is not None and edge_label in graph.es.attributes() else None
    vertex_attr, edge_attr = f"vertex attribute {label!r}", f"edge attribute {edge_label!r}"
    return _build(
        [u for u, _ in edges], [v for _, v in edges], labels, elabels, graph.is_directed(), graph.vcount(),
        (vertex_attr, lambda i: f"{vertex_attr} of vertex {i}"), (edge_attr, lambda i: f"{edge_attr} of edge {i}"),
    )


# Last: subgraph.nx imports the names above.
from . import nx
