"""Tests of the Python package against known counts, a brute-force count and networkx."""

import importlib.metadata
import itertools
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import subgraph

DATA = pathlib.Path(__file__).resolve().parents[3] / "tests" / "data"


def brute_force(n, edges, labels, q_n, q_edges, q_labels, semantics):
    """Matches of the query by trying every map (undirected graphs)."""
    adjacent = {frozenset(e) for e in edges}
    q_adjacent = {frozenset(e) for e in q_edges}
    maps = itertools.permutations(range(n), q_n) if semantics != "homomorphism" else itertools.product(range(n), repeat=q_n)
    found = 0
    for f in maps:
        if any(labels[f[u]] != q_labels[u] for u in range(q_n)):
            continue
        if any(frozenset((f[a], f[b])) not in adjacent for a, b in q_edges):
            continue
        if semantics == "induced" and any(
            frozenset((f[a], f[b])) in adjacent
            for a, b in itertools.combinations(range(q_n), 2)
            if frozenset((a, b)) not in q_adjacent
        ):
            continue
        found += 1
    return found


def test_hprd_query_from_files():
    data = subgraph.Graph.from_file(str(DATA / "hprd" / "HPRD.graph"))
    query = subgraph.Graph.from_file(DATA / "hprd" / "queries" / "query_dense_16_2.graph")
    assert (data.num_vertices, query.num_vertices) == (9460, 16)
    result = subgraph.count(data, query)
    assert (result.embeddings, result.complete, result.stopped) == (80, True, None)
    rows = subgraph.match(data, query)
    assert rows.shape == (80, 16) and rows.dtype == np.uint32
    assert len({tuple(r) for r in rows}) == 80
    labels = data.labels()
    assert (labels[rows] == query.labels()).all()


@pytest.mark.parametrize("semantics", ["embed", "induced", "homomorphism"])
@pytest.mark.parametrize("seed", range(6))
def test_counts_equal_brute_force(semantics, seed):
    rng = np.random.default_rng(seed)
    n = 9
    edges = [(a, b) for a, b in itertools.combinations(range(n), 2) if rng.random() < 0.45]
    labels = rng.integers(0, 2, n)
    q_edges = [(0, 1), (1, 2)] if seed % 2 else [(0, 1), (1, 2), (2, 0)]
    q_labels = rng.integers(0, 2, 3)
    data = subgraph.Graph.from_edges([a for a, _ in edges], [b for _, b in edges], labels, num_vertices=n)
    query = subgraph.Graph.from_edges([a for a, _ in q_edges], [b for _, b in q_edges], q_labels)
    expect = brute_force(n, edges, labels, 3, q_edges, q_labels, semantics)
    for threads in (1, None):
        assert subgraph.count(data, query, semantics=semantics, threads=threads).embeddings == expect
    rows = subgraph.match(data, query, semantics=semantics)
    assert rows.shape == (expect, 3)
    adjacent = {frozenset(map(int, e)) for e in edges}
    assert all(frozenset((int(r[a]), int(r[b]))) in adjacent for r in rows for a, b in q_edges)


def test_networkx_graphs_match_networkx_counts():
    nx = pytest.importorskip("networkx")
    from networkx.algorithms import isomorphism

    g = nx.gnp_random_graph(40, 0.2, seed=3)
    for v in g.nodes:
        g.nodes[v]["label"] = v % 2
    h = nx.Graph([(0, 1), (1, 2), (2, 3)])
    for v in h.nodes:
        h.nodes[v]["label"] = v % 2
    matcher = isomorphism.GraphMatcher(g, h, node_match=lambda a, b: a["label"] == b["label"])
    expect = sum(1 for _ in matcher.subgraph_monomorphisms_iter())
    data, nodes = subgraph.from_networkx(g)
    query, _ = subgraph.from_networkx(h)
    assert subgraph.count(data, query).embeddings == expect
    assert nodes == list(g.nodes)


def test_limit_timeout_and_result_fields():
    k = 40
    pairs = list(itertools.combinations(range(k), 2))
    clique = subgraph.Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs])
    path = subgraph.Graph.from_edges(range(9), range(1, 10))
    limited = subgraph.count(clique, path, limit=1000)
    assert (limited.embeddings, limited.complete, limited.stopped) == (1000, False, "limit")
    assert repr(limited).startswith("Result(embeddings=1000, complete=False, stopped='limit', elapsed_ms=")
    assert "stopped=None" in repr(subgraph.count(clique, subgraph.Graph.from_edges([0], [1])))
    assert subgraph.match(clique, path, limit=7).shape == (7, 10)
    start = time.monotonic()
    timed = subgraph.count(clique, path, timeout=0.2)
    assert timed.stopped == "timeout" and not timed.complete
    assert time.monotonic() - start < 5
    assert timed.elapsed_ms >= timed.enumerate_ms and timed.filter in ("nlf", "gql")
    assert timed.enumerate_ms >= timed.trial_ms + timed.probe_ms


def test_ctrl_c_stops_a_query():
    k = 40
    pairs = list(itertools.combinations(range(k), 2))
    clique = subgraph.Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs])
    path = subgraph.Graph.from_edges(range(11), range(1, 12))
    # Python's own Ctrl-C handler: a process started in the background by a shell without job
    # control (as CI may start it) inherits SIGINT ignored, and Python then installs none.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            # The timeout ends the test, failing, should Ctrl-C not stop the query.
            subgraph.count(clique, path, timeout=30)
        assert time.monotonic() - start < 5
    finally:
        signal.signal(signal.SIGINT, previous)


def test_sparse_ids_come_out_as_the_file_wrote_them(tmp_path):
    edges = tmp_path / "sparse.txt"
    edges.write_text("# comment\n100 7000000000\n7000000000 42\n42 100\n")
    data = subgraph.Graph.from_file(str(edges))
    triangle = subgraph.Graph.from_edges([0, 1, 2], [1, 2, 0])
    rows = subgraph.match(data, triangle)
    assert rows.dtype == np.uint64 and rows.shape == (6, 3)
    assert {int(x) for x in rows.ravel()} == {42, 100, 7000000000}
    saved = tmp_path / "sparse.sgb"
    data.save(str(saved))
    again = subgraph.Graph.from_file(str(saved))
    assert (again.num_vertices, again.num_edges) == (3, 3)
    assert sorted(int(x) for x in again.original_ids()) == [42, 100, 7000000000]


def test_errors_are_one_line_subgraph_errors(tmp_path):
    bad = tmp_path / "bad.graph"
    bad.write_text("t 2 1\nv 0 0 1\nv 1 0 1\ne 0 5 0\n")
    with pytest.raises(subgraph.SubgraphError, match=r"bad.graph:4: .*out of range"):
        subgraph.Graph.from_file(str(bad))
    with pytest.raises(subgraph.SubgraphError, match="No such file"):
        subgraph.Graph.from_file(str(tmp_path / "missing.graph"))
    with pytest.raises(subgraph.SubgraphError, match=r"src\[0\] = -1"):
        subgraph.Graph.from_edges([-1], [0])
    with pytest.raises(subgraph.SubgraphError, match="edge labels for"):
        subgraph.Graph.from_edges([0], [1], edge_labels=[1, 2])
    with pytest.raises(subgraph.SubgraphError, match="integers"):
        subgraph.Graph.from_edges([0.5], [1])
    g = subgraph.Graph.from_edges([0], [1])
    with pytest.raises(subgraph.SubgraphError, match="unknown semantics"):
        subgraph.count(g, g, semantics="iso")
    assert issubclass(subgraph.SubgraphError, ValueError)


def test_unique_divides_by_the_automorphisms():
    pairs = list(itertools.combinations(range(4), 2))
    k4 = subgraph.Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs])
    triangle = subgraph.Graph.from_edges([0, 1, 2], [1, 2, 0])
    r = subgraph.count(k4, triangle, unique=True)
    assert (r.embeddings, r.automorphisms, r.unique) == (24, 6, 4)
    assert subgraph.count(k4, triangle).unique is None
    with pytest.raises(subgraph.SubgraphError, match="homomorphisms"):
        subgraph.count(k4, triangle, semantics="homomorphism", unique=True)


def test_iter_matches_streams_the_same_matches_and_stops_when_left():
    data = subgraph.Graph.from_file(str(DATA / "hprd" / "HPRD.graph"))
    # 2688 matches of 16 vertices: three batches of 64 KiB.
    query = subgraph.Graph.from_file(str(DATA / "hprd" / "queries" / "query_dense_16_160.graph"))
    whole = subgraph.match(data, query)
    batches = list(subgraph.iter_matches(data, query, threads=1))
    assert len(batches) >= 2 and len(whole) == 2688
    assert sorted(map(tuple, np.concatenate(batches))) == sorted(map(tuple, whole))
    # A search of about 10^14 matches: leaving after one batch ends it at once.
    pairs = list(itertools.combinations(range(40), 2))
    clique = subgraph.Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs])
    path = subgraph.Graph.from_edges(range(9), range(1, 10))
    start = time.monotonic()
    for rows in subgraph.iter_matches(clique, path, timeout=30):
        assert rows.shape[1] == 10 and len(rows) > 0
        break
    assert subgraph.count(clique, path, limit=10).embeddings == 10
    assert time.monotonic() - start < 10


def test_explain_lists_the_plans_and_the_chosen_one():
    data = subgraph.Graph.from_file(str(DATA / "hprd" / "HPRD.graph"))
    query = subgraph.Graph.from_file(str(DATA / "hprd" / "queries" / "query_dense_16_2.graph"))
    plans = subgraph.explain(data, query)
    assert sum(p["chosen"] for p in plans) == 1
    assert all(sorted(p["vertices"]) == list(range(16)) and p["estimated_cost"] >= 0 for p in plans)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_networkx_drop_in_yields_networkx_mappings(directed, seed):
    nx = pytest.importorskip("networkx")
    from networkx.algorithms import isomorphism

    from subgraph import nx as sgnx

    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(14, 0.3, seed=seed, directed=directed)
    h = nx.gnp_random_graph(4, 0.6, seed=seed + 100, directed=directed)
    for graph in (g, h):
        for v in graph.nodes:
            graph.nodes[v]["color"] = int(rng.integers(0, 2))
        for e in graph.edges:
            graph.edges[e]["kind"] = int(rng.integers(0, 2))
    nm = isomorphism.categorical_node_match("color", None)
    em = isomorphism.categorical_edge_match("kind", None)
    matcher = (isomorphism.DiGraphMatcher if directed else isomorphism.GraphMatcher)(g, h, node_match=nm, edge_match=em)
    as_set = lambda ms: sorted(tuple(sorted(m.items())) for m in ms)
    assert as_set(sgnx.subgraph_monomorphisms_iter(g, h, nm, em)) == as_set(matcher.subgraph_monomorphisms_iter())
    matcher = (isomorphism.DiGraphMatcher if directed else isomorphism.GraphMatcher)(g, h, node_match=nm, edge_match=em)
    assert as_set(sgnx.subgraph_isomorphisms_iter(g, h, nm, em)) == as_set(matcher.subgraph_isomorphisms_iter())


def test_rustworkx_and_igraph_graphs_count_as_networkx_does():
    nx = pytest.importorskip("networkx")
    rx = pytest.importorskip("rustworkx")
    ig = pytest.importorskip("igraph")
    g = nx.gnp_random_graph(30, 0.25, seed=7, directed=True)
    for v in g.nodes:
        g.nodes[v]["label"] = v % 2
    h = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    for v in h.nodes:
        h.nodes[v]["label"] = 0
    expect = subgraph.count(subgraph.from_networkx(g)[0], subgraph.from_networkx(h)[0]).embeddings
    assert expect > 0
    # rustworkx, with a removed node: indices skip it, and the graphs are the same.
    r = rx.PyDiGraph()
    idx = r.add_nodes_from([{"label": v % 2} for v in range(31)])
    r.remove_node(idx[30])
    r.add_edges_from([(u, v, {}) for u, v in g.edges])
    rq = rx.PyDiGraph()
    rq.add_nodes_from([{"label": 0}] * 3)
    rq.add_edges_from([(0, 1, {}), (1, 2, {}), (2, 0, {})])
    rdata, nodes = subgraph.from_rustworkx(r, label="label")
    assert nodes == list(range(30))
    assert subgraph.count(rdata, subgraph.from_rustworkx(rq, label=lambda p: p["label"])[0]).embeddings == expect
    i = ig.Graph(n=30, edges=list(g.edges), directed=True)
    i.vs["label"] = [v % 2 for v in range(30)]
    iq = ig.Graph(n=3, edges=[(0, 1), (1, 2), (2, 0)], directed=True)
    assert subgraph.count(subgraph.from_igraph(i), subgraph.from_igraph(iq)).embeddings == expect


def test_devices():
    data = subgraph.Graph.from_file(str(DATA / "hprd" / "HPRD.graph"))
    query = subgraph.Graph.from_file(str(DATA / "hprd" / "queries" / "query_dense_16_2.graph"))
    cpu = subgraph.count(data, query, device="cpu")
    assert (cpu.embeddings, cpu.device) == (80, "cpu")
    auto = subgraph.count(data, query)
    assert auto.embeddings == 80 and auto.device in ("cpu", "gpu")
    try:
        gpu = subgraph.count(data, query, device="gpu")
    except subgraph.SubgraphError as e:
        # Without a usable GPU: the reason, as the command line gives it.
        assert "GPU unavailable" in str(e) and auto.device == "cpu"
    else:
        assert (gpu.embeddings, gpu.device) == (80, "gpu")
        assert sorted(map(tuple, subgraph.match(data, query, device="gpu"))) == sorted(
            map(tuple, subgraph.match(data, query, device="cpu")))
    with pytest.raises(subgraph.SubgraphError, match="unknown device"):
        subgraph.count(data, query, device="tpu")
    # gpus (as --gpus): checked whatever the device; the CPU ignores it.
    for gpus in (1, 2, "all"):
        assert subgraph.count(data, query, device="cpu", gpus=gpus).embeddings == 80
    for bad in (0, -1, "two"):
        with pytest.raises(subgraph.SubgraphError, match="gpus must be a positive number"):
            subgraph.count(data, query, device="cpu", gpus=bad)
    with pytest.raises(subgraph.SubgraphError, match="gpus must be a positive number"):
        list(subgraph.iter_matches(data, query, device="cpu", gpus=0))


def as_pattern(path):
    """A Sun & Luo `.graph` query written as a pattern: every vertex with its label, every edge."""
    parts = []
    for line in pathlib.Path(path).read_text().splitlines():
        f = line.split()
        if f and f[0] == "v":
            parts.append(f"(v{f[1]}:{f[2]})")
        elif f and f[0] == "e":
            parts.append(f"(v{f[1]})--(v{f[2]})")
    return "MATCH " + ", ".join(parts)


def named_graph(props=True):
    named = DATA / "named"
    return subgraph.Graph.from_file(
        named / "edges.txt", directed=True, ids="names", vertex_labels=named / "labels.txt",
        vertex_props=named / "props.csv" if props else None)


def test_patterns_count_as_their_query_files():
    data = subgraph.Graph.from_file(DATA / "hprd" / "HPRD.graph")
    expected = dict(line.split(":") for line in (DATA / "hprd" / "expected_output.res").read_text().split())
    for name in ["query_dense_16_2", "query_dense_16_8", "query_dense_16_11"]:
        file = DATA / "hprd" / "queries" / f"{name}.graph"
        pattern = as_pattern(file)
        r = subgraph.count(data, pattern, semantics="embed")
        assert r.embeddings == int(expected[name]) == subgraph.count(data, subgraph.Graph.from_file(file)).embeddings
        assert (r.rows, r.columns, r.complete) == (r.embeddings, [f"v{i}" for i in range(16)], True)
        rows = subgraph.match(data, pattern, semantics="embed")
        assert sorted(map(tuple, rows)) == sorted(map(tuple, subgraph.match(data, subgraph.Graph.from_file(file))))
    # A Graph keeps its result fields: no rows, no columns.
    assert subgraph.count(data, subgraph.Graph.from_file(file)).rows is None


def test_patterns_default_to_homomorphism():
    data = subgraph.Graph.from_file(DATA / "hprd" / "HPRD.graph")
    path = "MATCH (a:1)--(b)--(c:1) RETURN count(*)"
    hom, emb = subgraph.count(data, path), subgraph.count(data, path, semantics="embed")
    assert hom.embeddings > emb.embeddings > 0 and hom.rows == 1 and hom.columns == ["count(*)"]
    # Homomorphisms add the folded paths a = c: one per edge from a vertex labelled 1.
    folded = subgraph.count(data, "MATCH (a:1)--(b) RETURN count(*)").embeddings
    assert hom.embeddings == emb.embeddings + folded
    counted = subgraph.match(data, path, semantics="embed")
    assert counted.shape == (1, 1) and int(counted[0, 0]) == emb.embeddings
    assert [b.tolist() for b in subgraph.iter_matches(data, path)] == [[[hom.embeddings]]]


def test_tree_patterns_are_counted_by_the_tree_passes():
    data = subgraph.Graph.from_file(DATA / "hprd" / "HPRD.graph")
    # A path with a wildcard middle (GGQ): counted without enumeration, as the CLI does; its
    # DISTINCT middle vertices are the answers, equal to those of the enumerated rows.
    path = "MATCH (a:1)--(b)--(c:2)"
    counted = subgraph.count(data, path + " RETURN count(*)")
    assert (counted.embeddings, counted.order) == (1741, "tree")
    rows = subgraph.match(data, path + " RETURN a, b, c")
    assert len(rows) == 1741 and subgraph.count(data, path + " RETURN a, b, c").order == "tree"
    answers = subgraph.match(data, path + " RETURN DISTINCT b")
    r = subgraph.count(data, path + " RETURN DISTINCT b")
    assert r.order == "tree" and answers.shape == (r.rows, 1)
    assert sorted(answers[:, 0].tolist()) == sorted(set(rows[:, 1].tolist()))
    # Under embed the pattern is enumerated.
    assert subgraph.count(data, path + " RETURN count(*)", semantics="embed").order != "tree"


def test_pattern_rows_distinct_and_limit():
    data = subgraph.Graph.from_file(DATA / "hprd" / "HPRD.graph")
    triangles = "MATCH (a:1)--(b)--(c:1)--(a)"
    full = subgraph.match(data, triangles + " RETURN a, b, c", semantics="embed")
    labels = data.labels()
    assert full.shape[1] == 3 and len(full) > 0 and (labels[full[:, 0]] == 1).all() and (labels[full[:, 2]] == 1).all()
    distinct = subgraph.match(data, triangles + " RETURN DISTINCT b", semantics="embed")
    r = subgraph.count(data, triangles + " RETURN DISTINCT b", semantics="embed")
    assert distinct.shape == (r.rows, 1) and r.embeddings == len(full) > r.rows
    assert sorted(distinct[:, 0].tolist()) == sorted(set(full[:, 1].tolist()))
    limited = subgraph.match(data, triangles + " RETURN DISTINCT b LIMIT 2", semantics="embed")
    assert limited.shape == (2, 1) and len(set(limited[:, 0].tolist())) == 2
    assert set(limited[:, 0].tolist()) <= set(full[:, 1].tolist())
    assert len(subgraph.match(data, triangles, semantics="embed", limit=5)) == 5
    streamed = np.concatenate(list(subgraph.iter_matches(data, triangles + " RETURN DISTINCT b", semantics="embed")))
    assert sorted(streamed[:, 0].tolist()) == sorted(distinct[:, 0].tolist())


def test_patterns_on_a_named_property_graph():
    data = named_graph()
    rows = subgraph.match(data, "MATCH (a:Person)-[:knows]->(b:Person)-[:created]->(c:Lang) RETURN DISTINCT a, c")
    # Hand-checked, as the command line's test: who knows someone who created a language.
    assert sorted(map(tuple, rows.tolist())) == [
        ("ada", "cobol"), ("alan", "algol"), ("barbara", "cobol"), ("edsger", "clu"), ("grace", "clu")]
    p = """MATCH (a:Person {field: "computing"})-[:knows]->(b)-[:created]->(c:Lang)
           WHERE c.born >= 1959 AND b.name <> "Grace Hopper" RETURN a, b, c"""
    r = subgraph.count(data, p)
    assert (r.rows, r.columns) == (2, ["a", "b", "c"])
    assert sorted(map(tuple, subgraph.match(data, p).tolist())) == [
        ("edsger", "barbara", "clu"), ("grace", "barbara", "clu")]
    # An edge without direction matches either way, once: five pairs know each other.
    assert subgraph.count(data, "MATCH (a:Person)-[:knows]-(b:Person)").embeddings == 10
    with pytest.raises(subgraph.SubgraphError, match=r"property 'age', which the vertex properties do not have"):
        subgraph.count(data, "MATCH (a)-->(b) WHERE a.age > 3")
    with pytest.raises(subgraph.SubgraphError, match="vertex properties"):
        subgraph.count(named_graph(props=False), p)
    with pytest.raises(subgraph.SubgraphError, match=r"no vertex label of the data graph is named 'Robot'"):
        subgraph.count(data, "MATCH (a:Robot)-->(b)")
    with pytest.raises(subgraph.SubgraphError, match="unknown ids"):
        subgraph.Graph.from_file(DATA / "named" / "edges.txt", ids="strings")


def test_pattern_errors_are_subgraph_errors_with_the_caret():
    data = subgraph.Graph.from_file(DATA / "hprd" / "HPRD.graph")
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.count(data, "MATCH (a:1 -->(b)")
    message = str(e.value)
    assert message.startswith("pattern, line 1, column 12: expected"), message
    assert "\n  MATCH (a:1 -->(b)\n             ^" in message
    with pytest.raises(subgraph.SubgraphError, match="homomorphisms"):
        subgraph.count(data, "MATCH (a:1)--(b)", unique=True)


# The front ends as a new user meets them: names, errors in the package's words, arguments.


def test_nx_comes_with_import_subgraph(tmp_path):
    # A fresh interpreter (this one has imported subgraph.nx already), outside the source tree.
    code = "import subgraph; print(subgraph.nx.subgraph_monomorphisms_iter.__name__)"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert (run.returncode, run.stdout.strip()) == (0, "subgraph_monomorphisms_iter"), run.stderr


def test_the_namespace_is_the_documented_names_and_a_version():
    # Submodules: nx comes with `import subgraph`; ann, mf and cluster are there once imported.
    public = {name for name in dir(subgraph) if not name.startswith("_")} - {"ann", "mf", "cluster"}
    assert public == set(subgraph.__all__) | {"nx"}, public - set(subgraph.__all__)
    assert all(hasattr(subgraph, name) for name in subgraph.__all__)
    cargo = (pathlib.Path(__file__).resolve().parents[3] / "Cargo.toml").read_text()
    crate = re.search(r'\[workspace\.package\][^\[]*?\nversion = "([^"]+)"', cargo).group(1)
    assert subgraph.__version__ == importlib.metadata.version("subgraph") == crate


def test_reader_errors_name_the_ids_argument(tmp_path):
    names = tmp_path / "names.txt"
    names.write_text("0 1\nb c\n")
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.Graph.from_file(names)
    assert str(e.value).endswith("""names.txt:2: bad source id 'b'; use ids="names" for ids that are not numbers""")
    assert subgraph.Graph.from_file(names, ids="names").num_vertices == 4
    huge = tmp_path / "huge.txt"
    huge.write_text("0 4000000000\n")
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.Graph.from_file(huge, ids="keep")
    most = 2**20 + 16 * len("0 4000000000\n") + 1
    assert str(e.value).endswith(
        f"""huge.txt:1: target id 4000000000 with ids="keep" would make 4000000001 vertices; at most {most} are """
        """allowed for this file (without ids="keep" ids are compacted)""")


def test_query_errors_name_the_package_arguments():
    data = named_graph(props=False)
    undirected = subgraph.Graph.from_edges([0], [1])
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.count(data, undirected)
    assert "directed=" in str(e.value) and "--" not in str(e.value)
    tested = "MATCH (a:Person {field: \"computing\"})-[:knows]->(b) RETURN a, b"
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.count(data, tested)
    assert 'vertex_props="FILE.csv"' in str(e.value) and "--" not in str(e.value)
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.count(named_graph(), tested, semantics="embed", unique=True)
    assert str(e.value).endswith("break; leave unique out") and "--" not in str(e.value)
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.count(data, "MATCH (a:Person)-[:knows]-(b:Person)", semantics="induced")
    assert str(e.value).startswith('semantics="induced" does not say') and "--" not in str(e.value)


def test_unique_on_a_pattern_says_how_to_ask_for_embeddings():
    data = subgraph.Graph.from_file(DATA / "hprd" / "HPRD.graph")
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.count(data, "MATCH (a:1)--(b)", unique=True)
    message = str(e.value)
    assert "homomorphisms (the default for patterns)" in message and 'semantics="embed"' in message, message
    r = subgraph.count(data, "MATCH (a:1)--(b:1)", semantics="embed", unique=True)
    assert r.embeddings == 2 * r.unique > 0


def test_networkx_string_labels_are_names_matched_by_name():
    nx = pytest.importorskip("networkx")
    from networkx.algorithms.isomorphism import GraphMatcher, categorical_edge_match, categorical_node_match

    g = nx.gnp_random_graph(30, 0.2, seed=5)
    kinds = ["Person", "Lang", "Place"]
    for v in g.nodes:
        g.nodes[v]["label"] = kinds[v % 3]
    # The query lacks "Person": its names are numbered apart from the data graph's.
    h = nx.Graph([(0, 1), (1, 2)])
    for v, kind in zip(h.nodes, ["Place", "Lang", "Place"]):
        h.nodes[v]["label"] = kind
    matcher = GraphMatcher(g, h, node_match=categorical_node_match("label", 0))
    expect = sum(1 for _ in matcher.subgraph_monomorphisms_iter())
    data, _ = subgraph.from_networkx(g)
    query, _ = subgraph.from_networkx(h)
    assert expect > 0 and subgraph.count(data, query).embeddings == expect
    assert subgraph.count(data, "MATCH (a:Place)--(b:Lang)--(c:Place)", semantics="embed").embeddings == expect
    # Edge labels alike: the query has one of the data graph's two.
    for u, v in g.edges:
        g.edges[u, v]["rel"] = "likes" if (u + v) % 2 else "knows"
    nx.set_edge_attributes(h, "likes", "rel")
    matcher = GraphMatcher(g, h, node_match=categorical_node_match("label", 0),
                           edge_match=categorical_edge_match("rel", 0))
    expect = sum(1 for _ in matcher.subgraph_monomorphisms_iter())
    data, query = subgraph.from_networkx(g, edge_label="rel")[0], subgraph.from_networkx(h, edge_label="rel")[0]
    assert expect > 0 and subgraph.count(data, query).embeddings == expect
    # Names number as a file's: 0..k in byte order, integers among names by their digits.
    mixed = nx.Graph([("x", "y"), ("y", "z")])
    for v, kind in zip(mixed.nodes, ["b", 7, "a"]):
        mixed.nodes[v]["label"] = kind
    assert subgraph.from_networkx(mixed)[0].labels().tolist() == [2, 0, 1]
    # A query that names labels the data graph numbers is refused, as patterns refuse them.
    numbered = subgraph.Graph.from_edges([0, 1], [1, 2], vertex_labels=[0, 1, 0])
    with pytest.raises(subgraph.SubgraphError, match="the query's vertex labels are names"):
        subgraph.count(numbered, query)


def test_networkx_label_errors_name_the_node_attribute():
    nx = pytest.importorskip("networkx")
    g = nx.Graph([("a", "b")])
    g.nodes["b"]["kind"] = 1.5
    with pytest.raises(subgraph.SubgraphError) as e:
        subgraph.from_networkx(g, label="kind")
    assert str(e.value) == ("node attribute 'kind' of node 'b' is 1.5, not a label (an integer 0..2^32 - 1 or a "
                            "string)")
    g.nodes["b"]["kind"] = -1
    with pytest.raises(subgraph.SubgraphError, match="node attribute 'kind' of node 'b' is -1, not a label"):
        subgraph.from_networkx(g, label="kind")
    g.edges["a", "b"]["rel"] = None
    with pytest.raises(subgraph.SubgraphError, match=r"edge attribute 'rel' of edge \('a', 'b'\) is None"):
        subgraph.from_networkx(g, label="label", edge_label="rel")


def test_a_query_of_another_type_is_a_one_line_type_error():
    g = subgraph.Graph.from_edges([0], [1])
    for call in (subgraph.count, subgraph.match, subgraph.explain, lambda d, q: list(subgraph.iter_matches(d, q))):
        with pytest.raises(TypeError) as e:
            call(g, 5)
        message = str(e.value)
        assert "\n" not in message and "Graph" in message and "pattern" in message and "int" in message, message
    for kwargs, name in [({"limit": "5"}, "limit"), ({"threads": "x"}, "threads"), ({"timeout": "x"}, "timeout")]:
        with pytest.raises(TypeError) as e:
            subgraph.count(g, g, **kwargs)
        assert f"'{name}'" in str(e.value) and "\n" not in str(e.value), str(e.value)
    with pytest.raises(TypeError, match=r'^gpus must be a positive number or "all", got 1\.5$'):
        subgraph.count(g, g, gpus=1.5)


def test_explain_takes_a_pattern():
    data = subgraph.Graph.from_file(DATA / "hprd" / "HPRD.graph")
    triangle = "MATCH (a:1)--(b:1)--(c:1)--(a)"
    plans = subgraph.explain(data, triangle, semantics="embed")
    as_graph = subgraph.explain(data, subgraph.Graph.from_edges([0, 1, 2], [1, 2, 0], vertex_labels=[1, 1, 1]))
    assert sum(p["chosen"] for p in plans) == 1 and {p["expansion"] for p in plans + as_graph} == {0}
    assert all(sorted(p["vertices"]) == [0, 1, 2] for p in plans)
    # Homomorphisms by default, as count(); each label expansion of b explained in turn.
    expanded = subgraph.explain(data, "MATCH (a:1)--(b)--(c:2)")
    expansions = {p["expansion"] for p in expanded}
    assert len(expansions) > 1 and all(sum(p["chosen"] for p in expanded if p["expansion"] == x) == 1
                                       for x in expansions)
    with pytest.raises(subgraph.SubgraphError, match="pattern, line 1, column 12"):
        subgraph.explain(data, "MATCH (a:1 -->(b)")


def test_unknown_names_list_the_names():
    g = subgraph.Graph.from_edges([0], [1])
    filters = "unknown filter 'xyz' (one of ldf, nlf, gql, cs, auto)"
    semantics = "unknown semantics 'iso' (one of embed, induced, homomorphism)"
    cases = [
        (lambda: subgraph.count(g, g, filter="xyz"), filters),
        (lambda: subgraph.count(g, g, semantics="iso"), semantics),
        (lambda: subgraph.count(g, g, device="tpu"), "unknown device 'tpu' (one of auto, cpu, gpu)"),
        (lambda: subgraph.match(g, g, filter="xyz"), filters),
        (lambda: subgraph.explain(g, g, filter="xyz"), filters),
        (lambda: subgraph.explain(g, g, semantics="iso"), semantics),
        (lambda: subgraph.Graph.from_file(DATA / "named" / "edges.txt", format="foo"),
         "unknown format 'foo' (one of graph, gsi, edges, binary, mtx, konect, rdf)"),
        (lambda: subgraph.Graph.from_file(DATA / "named" / "edges.txt", ids="strings"),
         "unknown ids 'strings' (one of compact, keep, names)"),
    ]
    for call, message in cases:
        with pytest.raises(subgraph.SubgraphError) as e:
            call()
        assert str(e.value) == message


def test_limit_and_threads_must_be_at_least_one():
    g = subgraph.Graph.from_edges([0], [1])
    for limit in (0, -3):
        for call in (subgraph.count, subgraph.match, lambda d, q, **kw: list(subgraph.iter_matches(d, q, **kw))):
            with pytest.raises(ValueError, match=f"^limit must be at least 1, got {limit}$"):
                call(g, g, limit=limit)
    assert subgraph.count(g, g, limit=1).embeddings == 1
    for threads in (0, -1):
        with pytest.raises(ValueError, match=f"^threads must be at least 1, got {threads}$"):
            subgraph.count(g, g, threads=threads)


def test_absurd_threads_and_timeouts_are_one_line_errors():
    # As the command line's --threads and --timeout: 100,000 threads hung, 1e300 s panicked.
    g = subgraph.Graph.from_edges([0], [1])
    with pytest.raises(ValueError, match="the most for this machine"):
        subgraph.count(g, g, threads=100_000)
    for timeout in (1e300, float("inf"), float("nan"), -1.0):
        with pytest.raises(ValueError, match="a time limit must be a positive number of seconds"):
            subgraph.count(g, g, timeout=timeout)
    assert subgraph.count(g, g, timeout=1e9, threads=2).embeddings == 2


def test_query_graphs_expand_over_label_sets_on_every_device(tmp_path):
    # Vertex 0 is labelled 1 and 2; 0 and 1 are joined by edges of labels 0 and 1. A query
    # file's labels expand over the sets that hold them on the CPU as on the runner (the CPU
    # path matched the query unexpanded and counted 1 of 3).
    (tmp_path / "g.txt").write_text("0 1 0\n1 2 0\n0 2 0\n0 1 1\n")
    (tmp_path / "g.txt.labels").write_text("0 1 2\n1 1\n2 2\n")
    (tmp_path / "q.graph").write_text("t 2 1\nv 0 1\nv 1 2\ne 0 1 0\n")
    data = subgraph.Graph.from_file(tmp_path / "g.txt")
    query = subgraph.Graph.from_file(tmp_path / "q.graph")
    for device in ["cpu", "auto"]:
        assert subgraph.count(data, query, device=device).embeddings == 3
    assert len(subgraph.match(data, query, device="cpu")) == 3
    plans = subgraph.explain(data, query)
    assert {p["expansion"] for p in plans} == {0, 1, 2}
