//! The CPU builder and search against brute force: exact when the bound covers the whole set,
//! for every graph kind and metric; a useful recall at an ordinary bound; filters; bad input.

use subgraph_ann::brute::brute_force;
use subgraph_ann::cpu::{build, search, BuildParams};
use subgraph_ann::{read_vectors, recall, Allowed, GraphKind, Metric, SearchParams, Vectors};

/// Xorshift numbers in [-0.5, 0.5).
fn uniform(seed: u64) -> impl FnMut() -> f32 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }
}

/// Deterministic points near `clusters` fixed three-dimensional planes (as real descriptors lie
/// near low-dimensional sets); `seed` draws the offsets.
fn points(n: usize, dim: usize, clusters: usize, seed: u64) -> Vectors {
    let mut fixed = uniform(12345);
    let centres: Vec<f32> = (0..clusters * dim).map(|_| fixed() * 8.0).collect();
    let axes: Vec<f32> = (0..clusters * 3 * dim).map(|_| fixed()).collect();
    let mut next = uniform(seed);
    let mut data = Vec::with_capacity(n * dim);
    for i in 0..n {
        let c = (i * 7919) % clusters;
        let z = [next() * 4.0, next() * 4.0, next() * 4.0];
        data.extend((0..dim).map(|j| {
            let along: f32 = (0..3).map(|a| z[a] * axes[(c * 3 + a) * dim + j]).sum();
            centres[c * dim + j] + along + next() * 0.1
        }));
    }
    Vectors::new(dim, data).unwrap()
}

#[test]
fn a_bound_over_the_whole_set_is_brute_force() {
    let base = points(700, 12, 9, 7);
    let queries = points(40, 12, 9, 99);
    for kind in GraphKind::ALL {
        for metric in Metric::ALL {
            let prepared = metric.prepare(base.clone()).unwrap();
            let q = metric.prepare(queries.clone()).unwrap();
            let built = build(&prepared, metric, &BuildParams::new(kind, 16).unwrap()).unwrap();
            built.graph.validate().unwrap();
            assert_eq!(built.graph.len(), 700);
            let params = SearchParams::new(10, Some(1024)).unwrap();
            let found = search(&built.vectors, metric, &built.graph, &q, params, None).unwrap();
            let exact = brute_force(&built.vectors, metric, &q, 10, None);
            assert_eq!(found.ids, exact.ids, "{kind} {metric}");
            assert_eq!(found.distances, exact.distances, "{kind} {metric}");
        }
    }
}

#[test]
fn separate_clusters_are_joined_for_every_graph() {
    // 500 vectors in twenty far-apart clusters (numpy's, shipped): a KNN graph's rows never
    // leave their cluster, and a first connectivity pass that gave up slots whose vertex kept
    // only an in-edge from an unreached vertex left one of them out of a search from vertex 0.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/vectors");
    let base = read_vectors(dir.join("clusters.npy"), None).unwrap();
    let queries = read_vectors(dir.join("clusters-queries.npy"), None).unwrap();
    for kind in GraphKind::ALL {
        let built = build(&base, Metric::L2, &BuildParams::new(kind, 16).unwrap()).unwrap();
        let found = search(
            &built.vectors,
            Metric::L2,
            &built.graph,
            &queries,
            SearchParams::new(10, Some(1024)).unwrap(),
            None,
        )
        .unwrap();
        let exact = brute_force(&built.vectors, Metric::L2, &queries, 10, None);
        assert_eq!(found.ids, exact.ids, "{kind}");
    }
}

#[test]
fn an_ordinary_bound_finds_most_neighbours() {
    let base = points(20_000, 24, 50, 3);
    let queries = points(200, 24, 50, 11);
    let exact = brute_force(&base, Metric::L2, &queries, 10, None);
    for kind in [GraphKind::Nsw, GraphKind::Hnsw] {
        let built = build(&base, Metric::L2, &BuildParams::new(kind, 32).unwrap()).unwrap();
        if kind == GraphKind::Hnsw {
            assert!(built.graph.layers.len() > 2, "{} layers", built.graph.layers.len());
        }
        let mut found =
            search(&built.vectors, Metric::L2, &built.graph, &queries, SearchParams::new(10, Some(64)).unwrap(), None)
                .unwrap();
        found.map_ids(&built.order);
        let r = recall(&found, &exact.ids, 10, 10).unwrap();
        assert!(r > 0.95, "{kind}: recall {r}");
    }
}

#[test]
fn filters_return_only_passing_ids_and_are_exact_at_full_bound() {
    let base = points(3000, 8, 20, 5);
    let queries = points(30, 8, 20, 6);
    let built = build(&base, Metric::L2, &BuildParams::new(GraphKind::Nsw, 16).unwrap()).unwrap();
    for modulus in [2, 10, 100] {
        let allowed = Allowed::from_fn(3000, |i| built.order[i].is_multiple_of(modulus));
        let found = search(
            &built.vectors,
            Metric::L2,
            &built.graph,
            &queries,
            SearchParams::new(10, Some(64)).unwrap(),
            Some(&allowed),
        )
        .unwrap();
        assert!(found.ids.iter().all(|&id| allowed.contains(id)), "1/{modulus}");
        let exact = brute_force(&built.vectors, Metric::L2, &queries, 10, Some(&allowed));
        let r = recall(&found, &exact.ids, 10, 10).unwrap();
        assert!(r > 0.9, "1/{modulus}: recall {r}");
    }
}

#[test]
fn bad_input_is_one_clear_error() {
    let base = points(50, 4, 2, 1);
    let built = build(&base, Metric::L2, &BuildParams::new(GraphKind::Nsw, 8).unwrap()).unwrap();
    let wrong = points(3, 5, 1, 2);
    let e = search(&built.vectors, Metric::L2, &built.graph, &wrong, SearchParams::new(1, None).unwrap(), None)
        .unwrap_err();
    assert_eq!(e.to_string(), "the queries have dimension 5, the index 4");
    let q = points(3, 4, 1, 2);
    let e =
        search(&built.vectors, Metric::L2, &built.graph, &q, SearchParams::new(51, None).unwrap(), None).unwrap_err();
    assert_eq!(e.to_string(), "k 51 is larger than the 50 vectors of the index");
    let empty = Vectors::new(4, vec![]).unwrap();
    assert!(build(&empty, Metric::L2, &BuildParams::new(GraphKind::Nsw, 8).unwrap()).is_err());
    assert!(BuildParams::new(GraphKind::Nsw, 1).is_err());
    assert!(BuildParams::new(GraphKind::Nsw, 1000).is_err());
}
