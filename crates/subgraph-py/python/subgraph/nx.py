"""Drop-in replacements for networkx's subgraph matchers.

    from subgraph import nx as sgnx
    for mapping in sgnx.subgraph_monomorphisms_iter(G, H, node_match=nm):
        ...                                  # {node of G: node of H}, as networkx yields

`subgraph_monomorphisms_iter(G1, G2)` is networkx's `GraphMatcher(G1, G2, node_match,
edge_match).subgraph_monomorphisms_iter()` (`DiGraphMatcher` for directed graphs): every
injective map of G2's nodes into G1 that keeps G2's edges; `subgraph_isomorphisms_iter` also
keeps G2's non-edges (induced). The mappings are the same set networkx yields (in another
order). `node_match` and `edge_match` must be equivalence tests of attribute dicts, as
networkx's `categorical_node_match` and `categorical_edge_match` are: each node or edge of G1
may match the nodes or edges of at most one class of G2's.
"""

from . import Graph, SubgraphError, match


def _classes(items1, items2, attrs1, attrs2, same):
    """Labels for two lists of attribute dicts: the class of G2's items each one matches (G2's
    classes are 0..k-1, G1's items that match none get k)."""
    reps = []
    labels2 = []
    for a in attrs2:
        for i, r in enumerate(reps):
            if same(a, r):
                labels2.append(i)
                break
        else:
            reps.append(a)
            labels2.append(len(reps) - 1)
    labels1 = []
    for item, a in zip(items1, attrs1):
        hits = [i for i, r in enumerate(reps) if same(a, r)]
        if len(hits) > 1:
            raise SubgraphError(f"the match test puts {item!r} of G1 in {len(hits)} classes of G2; it must be an equivalence")
        labels1.append(hits[0] if hits else len(reps))
    return labels1, labels2


def _graph(g, vertex_labels, edge_labels):
    nodes = list(g.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    edges = list(g.edges)
    src = [index[e[0]] for e in edges]
    dst = [index[e[1]] for e in edges]
    return Graph.from_edges(src, dst, vertex_labels, edge_labels, g.is_directed(), len(nodes)), nodes


def _mappings(G1, G2, node_match, edge_match, semantics):
    if G1.is_directed() != G2.is_directed():
        raise SubgraphError("G1 and G2 must both be directed or both undirected")
    if G1.is_multigraph() or G2.is_multigraph():
        raise SubgraphError("multigraphs are not supported")
    if node_match is None:
        vl1, vl2 = [0] * len(G1), [0] * len(G2)
    else:
        vl1, vl2 = _classes(list(G1.nodes), list(G2.nodes), [G1.nodes[n] for n in G1.nodes],
                            [G2.nodes[n] for n in G2.nodes], node_match)
    if edge_match is None:
        el1, el2 = None, None
    else:
        el1, el2 = _classes(list(G1.edges), list(G2.edges), [d for *_, d in G1.edges(data=True)],
                            [d for *_, d in G2.edges(data=True)], edge_match)
    data, nodes1 = _graph(G1, vl1, el1)
    query, nodes2 = _graph(G2, vl2, el2)
    for row in match(data, query, semantics=semantics):
        yield {nodes1[v]: nodes2[u] for u, v in enumerate(row)}


def subgraph_monomorphisms_iter(G1, G2, node_match=None, edge_match=None):
    """Every monomorphism of G2 into G1 as a dict {node of G1: node of G2} (networkx's)."""
    return _mappings(G1, G2, node_match, edge_match, "embed")


def subgraph_isomorphisms_iter(G1, G2, node_match=None, edge_match=None):
    """Every induced subgraph isomorphism of G2 into G1 as a dict {node of G1: node of G2}."""
    return _mappings(G1, G2, node_match, edge_match, "induced")
