"""subgraph.cluster: counts over a partition with processes over loopback, equal to one host's;
a limit; distinct subgraphs; the hosts-file form; and errors as SubgraphError naming the
process."""

import os
import socket

import pytest

import subgraph
import subgraph.cluster

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "data", "hprd")


@pytest.fixture(scope="module")
def hprd(tmp_path_factory):
    data = subgraph.Graph.from_file(os.path.join(DATA, "HPRD.graph"))
    out = tmp_path_factory.mktemp("hprd-3")
    manifest = subgraph.cluster.partition(data, 3, out)
    return data, manifest


def test_counts_equal_one_hosts(hprd):
    data, manifest = hprd
    path = os.path.join(DATA, "queries", "query_dense_16_2.graph")
    r = subgraph.cluster.count(manifest, path, local_processes=2)
    assert (r.embeddings, r.complete, r.stopped, r.processes) == (80, True, None, 2)
    assert len(r.busy_ms) == 2 and r.bytes_sent > 0 and r.search == "held" and r.tail == 4
    triangle = subgraph.Graph.from_edges([0, 1, 2], [1, 2, 0], vertex_labels=[1, 1, 1])
    expected = subgraph.count(data, triangle).embeddings
    r = subgraph.cluster.count(manifest, triangle, local_processes=3, threads=2, order="ri", cache_memory=0)
    assert (r.embeddings, r.replicated_positions, r.search) == (expected, 0, "routed")
    r = subgraph.cluster.count(manifest, triangle, local_processes=2, limit=5)
    assert (r.embeddings, r.complete, r.stopped, r.search) == (5, False, "limit", "routed")
    assert (r.automorphisms, r.unique) == (None, None)


def test_every_vertex_order_counts_as_one_host(tmp_path):
    # A 5-clique with a tail of three, unlabelled: auto renumbers it by degree.
    src = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 5, 6]
    dst = [1, 2, 3, 4, 2, 3, 4, 3, 4, 4, 5, 6, 7]
    data = subgraph.Graph.from_edges(src, dst)
    triangle = subgraph.Graph.from_edges([0, 1, 2], [1, 2, 0])
    expected = subgraph.count(data, triangle).embeddings
    assert expected == 60
    for order in ["auto", "file", "degree"]:
        manifest = subgraph.cluster.partition(data, 2, tmp_path / order, vertex_order=order)
        assert subgraph.cluster.count(manifest, triangle, local_processes=2).embeddings == expected, order


def test_unique_counts_distinct_subgraphs_as_one_host(hprd):
    data, manifest = hprd
    triangle = subgraph.Graph.from_edges([0, 1, 2], [1, 2, 0], vertex_labels=[1, 1, 1])
    one = subgraph.count(data, triangle, unique=True)
    assert one.automorphisms == 6 and one.unique * 6 == one.embeddings
    r = subgraph.cluster.count(manifest, triangle, local_processes=2, unique=True)
    assert (r.embeddings, r.automorphisms, r.unique) == (one.embeddings, 6, one.unique)
    r = subgraph.cluster.count(manifest, triangle, local_processes=2, unique=True, limit=1)
    assert (r.automorphisms, r.unique) == (6, None)


def test_hosts_file_processes_count_together(hprd, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    _, manifest = hprd
    sockets = [socket.socket() for _ in range(2)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("".join(f"127.0.0.1:{s.getsockname()[1]}\n" for s in sockets))
    for s in sockets:
        s.close()
    path = os.path.join(DATA, "queries", "query_dense_16_2.graph")
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda p: subgraph.cluster.count(manifest, path, hosts=hosts, process=p), [0, 1]))
    assert got[0].embeddings == 80 and got[1] is None


def test_errors_name_the_problem(hprd, tmp_path):
    _, manifest = hprd
    path = os.path.join(DATA, "queries", "query_dense_16_2.graph")
    with pytest.raises(subgraph.SubgraphError, match="local_processes=N, or hosts="):
        subgraph.cluster.count(manifest, path)
    with pytest.raises(subgraph.SubgraphError, match="patterns are not supported"):
        subgraph.cluster.count(manifest, "MATCH (a)--(b) RETURN a", local_processes=2)
    with pytest.raises(subgraph.SubgraphError, match="process 0: .*homomorphism"):
        subgraph.cluster.count(manifest, path, local_processes=2, semantics="homomorphism")
    with pytest.raises(subgraph.SubgraphError, match="process .*: .*4 processes but the partition"):
        subgraph.cluster.count(manifest, path, local_processes=4)
    with pytest.raises(subgraph.SubgraphError, match="unknown order 'ldf'"):
        subgraph.cluster.count(manifest, path, local_processes=1, order="ldf")
    with pytest.raises(subgraph.SubgraphError, match="threads must be at least 1, got 0"):
        subgraph.cluster.count(manifest, path, local_processes=1, threads=0)
    with pytest.raises(subgraph.SubgraphError, match="limit must be at least 1, got 0"):
        subgraph.cluster.count(manifest, path, local_processes=1, limit=0)
    for bad in [0.0, 1e300, float("nan")]:
        with pytest.raises(subgraph.SubgraphError, match="connect_timeout: a time limit must be a positive"):
            subgraph.cluster.count(manifest, path, local_processes=1, connect_timeout=bad)
    with pytest.raises(TypeError):
        subgraph.cluster.count(manifest, 42, local_processes=1)
    with pytest.raises(subgraph.SubgraphError, match="unknown vertex order 'hubs'"):
        subgraph.cluster.partition(subgraph.Graph.from_edges([0], [1]), 2, tmp_path, vertex_order="hubs")
    with pytest.raises(subgraph.SubgraphError, match="unknown partition rule"):
        subgraph.cluster.partition(subgraph.Graph.from_edges([0], [1]), 2, tmp_path, by="round")
