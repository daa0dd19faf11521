"""subgraph.ann: build, search, add, save and load, filters and bad input, against brute force
(never assumed: recall is measured here)."""

import numpy as np
import pytest

import subgraph.ann
from subgraph.ann import Index, SubgraphError


def clustered(n, dim=16, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(20, dim)) * 4
    return (centres[rng.integers(0, 20, n)] + rng.normal(size=(n, dim))).astype(np.float32)


def recall(found, truth):
    return np.mean([len(set(f) & set(t)) / len(t) for f, t in zip(found, truth)])


@pytest.fixture(scope="module")
def data():
    return clustered(3000), clustered(50, seed=1)


@pytest.mark.parametrize("graph", ["nsw", "hnsw", "knn"])
@pytest.mark.parametrize("metric", ["l2", "ip", "cos"])
def test_a_bound_over_the_whole_set_is_brute_force(data, graph, metric):
    x, q = data[0][:500], data[1]
    index = Index.build(x, metric=metric, graph=graph, degree=16, device="cpu")
    ids, dists = index.search(q, k=10, ef=1024)
    exact_ids, exact_dists = index.brute_force(q, k=10)
    assert ids.shape == (50, 10) and ids.dtype == np.int64 and dists.dtype == np.float32
    assert (ids == exact_ids).all()
    assert np.allclose(dists, exact_dists)


def test_recall_and_the_numpy_answer(data):
    x, q = data
    index = Index.build(x, degree=32, device="cpu", threads=2)
    ids, dists = index.search(q, k=10, ef=64)
    truth = ((q[:, None, :] - x[None, :, :]) ** 2).sum(-1).argsort(1)[:, :10]
    assert recall(ids, truth) > 0.95
    assert (np.diff(dists, axis=1) >= 0).all()
    one, _ = index.search(q[0], k=3)
    assert one.shape == (1, 3)
    assert len(index) == 3000 and index.dim == 16 and index.device == "cpu"


def test_add_save_load(tmp_path, data):
    x, q = data
    index = Index.build(x[:2000], labels=np.arange(2000) % 4, device="cpu")
    index.add(x[2000:], labels=np.arange(2000, 3000) % 4)
    assert len(index) == 3000
    ids, _ = index.search(x[2500:2510], k=1)
    assert (ids[:, 0] == np.arange(2500, 2510)).all()
    path = tmp_path / "x.sgi"
    index.save(path)
    back = Index.load(path, device="cpu")
    assert (back.search(q, k=5)[0] == index.search(q, k=5)[0]).all()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(SubgraphError, match="bytes; the header describes"):
        Index.load(path)


def test_filters_return_only_passing_ids(data):
    x, q = data
    index = Index.build(x, labels=np.arange(3000) % 10, device="cpu")
    ids, _ = index.search(q, k=10, filter=[3])
    assert (ids % 10 == 3).all()
    mask = np.zeros(3000, dtype=bool)
    mask[:5] = True
    ids, dists = index.search(q, k=10, filter=mask)
    assert set(ids[:, :5].ravel()) <= set(range(5))
    assert (ids[:, 5:] == -1).all() and np.isinf(dists[:, 5:]).all()


def test_bad_input_is_one_clear_error(data):
    x, q = data
    index = Index.build(x[:100], device="cpu")
    with pytest.raises(SubgraphError, match="dimension 3, the index 16"):
        index.search(np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(SubgraphError, match="larger than the 100 vectors"):
        index.search(q, k=101)
    bad = x[:10].copy()
    bad[4, 2] = np.nan
    with pytest.raises(SubgraphError, match="row 4, column 2"):
        Index.build(bad)
    with pytest.raises(SubgraphError, match="empty"):
        Index.build(np.zeros((0, 4), dtype=np.float32))
    with pytest.raises(SubgraphError, match="device"):
        Index.build(x[:10], device="tpu")
    with pytest.raises(SubgraphError, match="without labels"):
        index.search(q, filter=[1])
    with pytest.raises(SubgraphError, match="precision 'half' is the GPU search's"):
        index.search(q, precision="half")
    with pytest.raises(SubgraphError, match="unknown precision 'quarter'"):
        index.search(q, precision="quarter")
    assert "subgraph.ann.Index(100 vectors" in repr(index)
    assert subgraph.ann.__all__ == ["Index", "SubgraphError"]
