//! The GPU search (GANNS, thesis §2.2, with HNSW's descent) and brute force on a real GPU
//! against CPU references written here: exact brute force, and the GANNS search as it is
//! defined (N of the next power of two ≥ max(ef, 32) entries sorted by (distance, id), the
//! first unexplored of the first ef explored, neighbours already in N dropped, the first k
//! passing entries of the first ef returned). On vectors of small integers every distance is
//! exact in f32 whatever the order of the sums, so the GPU must give the very same ids and
//! distances; on float vectors, ids may differ only between near-equal distances. Each test
//! skips when no GPU is usable, unless SUBGRAPH_REQUIRE_GPU=1.

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::Instant;

use rayon::prelude::*;
use subgraph_ann::filter::{route, Route};
use subgraph_ann::gpu::{brute_batched, brute_force, source, DeviceVectors, GpuIndex};
use subgraph_ann::{
    Allowed, GraphKind, Layer, Metric, Neighbours, Precision, ProximityGraph, SearchParams, Vectors, NONE,
};
use subgraph_cuda::{Arg, CudaError, Gpu};

fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| match Gpu::new() {
        Ok(gpu) => {
            let info = gpu.info();
            eprintln!(
                "device: {} ({}, {} MiB, {} SMs), NVRTC {}.{}",
                info.name,
                gpu.arch(),
                info.total_memory >> 20,
                info.multiprocessors,
                info.versions.nvrtc.0,
                info.versions.nvrtc.1
            );
            Some(gpu)
        }
        Err(e) => {
            if std::env::var("SUBGRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("SUBGRAPH_REQUIRE_GPU=1 but {e}");
            }
            eprintln!("skipped: {e}");
            None
        }
    })
    .as_ref()
}

/// xorshift64: deterministic data.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// `n` rows of `dim`: small integers (-8 to 8, whose distances are exact in f32) or floats in
/// [-1, 1), prepared for `metric`.
fn vectors(rng: &mut Rng, n: usize, dim: usize, integer: bool, metric: Metric) -> Vectors {
    let data = (0..n * dim).map(|_| if integer { rng.below(17) as f32 - 8.0 } else { rng.unit() }).collect();
    metric.prepare(Vectors::new(dim, data).unwrap()).unwrap()
}

fn order(a: &(f32, u32), b: &(f32, u32)) -> std::cmp::Ordering {
    a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(&b.1))
}

/// Exact k-NN on the CPU: ties by smaller id, only passing ids, padded with NONE/infinity.
fn reference(base: &Vectors, metric: Metric, queries: &Vectors, k: usize, allowed: Option<&Allowed>) -> Neighbours {
    let rows: Vec<Vec<(f32, u32)>> = (0..queries.len())
        .into_par_iter()
        .map(|q| {
            let mut all: Vec<(f32, u32)> = (0..base.len() as u32)
                .filter(|&i| allowed.is_none_or(|a| a.contains(i)))
                .map(|i| (metric.distance(queries.row(q), base.row(i as usize)), i))
                .collect();
            all.sort_by(order);
            all.truncate(k);
            all
        })
        .collect();
    neighbours(rows, k)
}

fn neighbours(rows: Vec<Vec<(f32, u32)>>, k: usize) -> Neighbours {
    let mut out = Neighbours::empty(rows.len(), k);
    for (q, row) in rows.into_iter().enumerate() {
        for (r, (d, id)) in row.into_iter().enumerate() {
            out.ids[q * k + r] = id;
            out.distances[q * k + r] = d;
        }
    }
    out
}

/// The first `len` rows of `base` joined to their `degree - 1` nearest (exact, nearest first)
/// and to the next row (v + 1 mod len), which keeps every vertex reachable from every other.
fn knn_layer(base: &Vectors, metric: Metric, len: usize, degree: usize) -> Layer {
    assert!(degree >= 2);
    let rows: Vec<Vec<u32>> = (0..len)
        .into_par_iter()
        .map(|v| {
            let mut near: Vec<(f32, u32)> = (0..len as u32)
                .filter(|&u| u as usize != v)
                .map(|u| (metric.distance(base.row(v), base.row(u as usize)), u))
                .collect();
            near.sort_by(order);
            let mut row: Vec<u32> = near.iter().take(degree - 1).map(|x| x.1).collect();
            let next = ((v + 1) % len) as u32;
            if next as usize != v && !row.contains(&next) {
                row.push(next);
            } else if let Some(x) = near.get(degree - 1) {
                row.push(x.1);
            }
            row
        })
        .collect();
    let mut layer = Layer::empty(len, degree);
    for (v, row) in rows.iter().enumerate() {
        layer.row_mut(v as u32)[..row.len()].copy_from_slice(row);
    }
    layer
}

/// Vertices reachable from vertex 0 in `layer`.
fn reachable(layer: &Layer) -> usize {
    let mut seen = vec![false; layer.len()];
    let mut stack = vec![0u32];
    seen[0] = true;
    while let Some(v) = stack.pop() {
        for u in layer.row(v).iter().copied().filter(|&u| u != NONE) {
            if !std::mem::replace(&mut seen[u as usize], true) {
                stack.push(u);
            }
        }
    }
    seen.iter().filter(|&&s| s).count()
}

/// A one-layer graph of `degree`, or with an upper layer over the first `upper.0` rows of
/// degree `upper.1` (HNSW's id prefix).
fn test_graph(base: &Vectors, metric: Metric, degree: usize, upper: Option<(usize, usize)>) -> ProximityGraph {
    let mut layers = vec![knn_layer(base, metric, base.len(), degree)];
    let mut kind = GraphKind::Knn;
    if let Some((len, d)) = upper {
        layers.push(knn_layer(base, metric, len, d));
        kind = GraphKind::Hnsw;
    }
    let graph = ProximityGraph { kind, layers };
    graph.validate().unwrap();
    graph
}

/// GANNS as defined, on the CPU: the greedy descent of the upper layers from vertex 0 of the
/// top one (to the nearest out-neighbour by (distance, id) while strictly nearer), then layer 0
/// with N of LN entries and exploration bound ef; the first k entries of N among its first ef
/// that pass `allowed`.
fn ganns_reference(
    base: &Vectors,
    metric: Metric,
    graph: &ProximityGraph,
    q: &[f32],
    ef: usize,
    k: usize,
    allowed: Option<&Allowed>,
) -> Vec<(f32, u32)> {
    let dist = |v: u32| metric.distance(q, base.row(v as usize));
    let mut cur = 0u32;
    let mut dcur = dist(0);
    for layer in graph.layers[1..].iter().rev() {
        let len = layer.len() as u32;
        loop {
            let best = layer.row(cur).iter().filter(|&&u| u < len).map(|&u| (dist(u), u)).min_by(order);
            match best {
                Some((d, u)) if d < dcur => (cur, dcur) = (u, d),
                _ => break,
            }
        }
    }
    let ln = ef.max(32).next_power_of_two();
    let e = ef.min(ln);
    let layer = &graph.layers[0];
    let mut nn: Vec<(f32, u32, bool)> = vec![(dist(cur), cur, false)];
    while let Some(pos) = nn.iter().take(e).position(|x| !x.2) {
        nn[pos].2 = true;
        let row = layer.row(nn[pos].1);
        let mut t = Vec::new();
        for (i, &u) in row.iter().enumerate() {
            if u == NONE || row[..i].contains(&u) || nn.iter().any(|x| x.1 == u) {
                continue;
            }
            t.push((dist(u), u, false));
        }
        nn.extend(t);
        nn.sort_by(|a, b| order(&(a.0, a.1), &(b.0, b.1)));
        nn.truncate(ln);
    }
    nn.iter().take(e).filter(|x| allowed.is_none_or(|a| a.contains(x.1))).take(k).map(|x| (x.0, x.1)).collect()
}

fn ganns_all(
    base: &Vectors,
    metric: Metric,
    graph: &ProximityGraph,
    queries: &Vectors,
    ef: usize,
    k: usize,
    allowed: Option<&Allowed>,
) -> Neighbours {
    let rows = (0..queries.len())
        .into_par_iter()
        .map(|q| ganns_reference(base, metric, graph, queries.row(q), ef, k, allowed))
        .collect();
    neighbours(rows, k)
}

/// The very same ids and distances (bit for bit).
fn assert_exact(got: &Neighbours, want: &Neighbours, what: &str) {
    assert_eq!(got.k, want.k, "{what}");
    assert_eq!(got.ids.len(), want.ids.len(), "{what}");
    for q in 0..want.queries() {
        let same_distances =
            got.distances_of(q).iter().zip(want.distances_of(q)).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(
            got.ids_of(q) == want.ids_of(q) && same_distances,
            "{what}, query {q}:\n  got  {:?}\n       {:?}\n  want {:?}\n       {:?}",
            got.ids_of(q),
            got.distances_of(q),
            want.ids_of(q),
            want.distances_of(q)
        );
    }
}

/// The same answer up to rounding: at every rank the distance is the reference's within 1e-4
/// (relative, at least absolute), and the id returned is a distinct vector whose CPU distance
/// is also the reference's there (so ids differ only between near-equal distances). Returns how
/// many ids differ.
fn assert_close(
    got: &Neighbours,
    want: &Neighbours,
    base: &Vectors,
    queries: &Vectors,
    metric: Metric,
    what: &str,
) -> usize {
    assert_eq!(got.k, want.k, "{what}");
    assert_eq!(got.ids.len(), want.ids.len(), "{what}");
    let mut differ = 0;
    for q in 0..want.queries() {
        let (gi, gd, wi, wd) = (got.ids_of(q), got.distances_of(q), want.ids_of(q), want.distances_of(q));
        let mut seen = HashSet::new();
        for r in 0..want.k {
            if wi[r] == NONE {
                assert!(gi[r] == NONE && gd[r] == f32::INFINITY, "{what}, query {q}, rank {r}: {} {}", gi[r], gd[r]);
                continue;
            }
            assert!(gi[r] != NONE && (gi[r] as usize) < base.len(), "{what}, query {q}, rank {r}: id {}", gi[r]);
            assert!(seen.insert(gi[r]), "{what}, query {q}: id {} twice", gi[r]);
            let tol = 1e-4 * wd[r].abs().max(1.0);
            let own = metric.distance(queries.row(q), base.row(gi[r] as usize));
            assert!(
                (gd[r] - wd[r]).abs() <= tol && (own - wd[r]).abs() <= tol,
                "{what}, query {q}, rank {r}: id {} at {} (CPU {own}), the reference's {} at {}",
                gi[r],
                gd[r],
                wi[r],
                wd[r]
            );
            differ += usize::from(gi[r] != wi[r]);
        }
    }
    differ
}

fn assert_passing(got: &Neighbours, allowed: &Allowed, what: &str) {
    for (i, &id) in got.ids.iter().enumerate() {
        assert!(id == NONE || allowed.contains(id), "{what}: query {} returned failing id {id}", i / got.k);
    }
}

fn params(k: usize, ef: usize) -> SearchParams {
    SearchParams { k, ef, precision: Precision::Single }
}

/// The CPU references agree with each other (no GPU needed): the test graphs keep every vertex
/// reachable, the GANNS definition at ef ≥ n is brute force, filtered or not, and at small ef
/// it still finds most true neighbours.
#[test]
fn the_references_agree() {
    let mut rng = Rng::new(10);
    for metric in [Metric::L2, Metric::Ip] {
        let n = 300;
        let base = vectors(&mut rng, n, 5, true, metric);
        let queries = vectors(&mut rng, 40, 5, true, metric);
        let graph = test_graph(&base, metric, 8, Some((30, 4)));
        assert_eq!(reachable(&graph.layers[0]), n);
        assert_eq!(reachable(&graph.layers[1]), 30);
        let want = reference(&base, metric, &queries, 10, None);
        assert_exact(&ganns_all(&base, metric, &graph, &queries, n, 10, None), &want, "full ef");
        let allowed = Allowed::from_fn(n, |i| i % 3 == 0);
        let filtered = reference(&base, metric, &queries, 10, Some(&allowed));
        assert_exact(&ganns_all(&base, metric, &graph, &queries, n, 10, Some(&allowed)), &filtered, "filtered");
        let small = ganns_all(&base, metric, &graph, &queries, 20, 10, None);
        let recall = subgraph_ann::recall(&small, &want.ids, 10, 10).unwrap();
        assert!(recall > 0.5, "{metric}: recall {recall}");
    }
}

/// (a) With ef ≥ n the search explores every vertex: it returns exactly the brute-force answer,
/// for every metric, several dimensions, one and two layers.
#[test]
fn search_at_full_ef_is_brute_force() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(1);
    for (dim, n, degree) in [(3, 1000, 16), (100, 1000, 32), (128, 1000, 16), (960, 600, 32)] {
        for metric in Metric::ALL {
            let base = vectors(&mut rng, n, dim, false, metric);
            let queries = vectors(&mut rng, 150, dim, false, metric);
            for upper in [None, Some((n / 8, 8))] {
                let graph = test_graph(&base, metric, degree, upper);
                let index = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
                for (k, ef) in [(10, 1000), (100, 1024), (1, n)] {
                    let what = format!("{metric} d{dim} n{n} deg{degree} upper {upper:?} k{k} ef{ef}");
                    let got = index.search(&queries, params(k, ef), None).unwrap();
                    let want = reference(&base, metric, &queries, k, None);
                    let differ = assert_close(&got, &want, &base, &queries, metric, &what);
                    eprintln!("{what}: {differ} ids differ at near-equal distances");
                }
            }
        }
        // Small integers: every distance exact, the answer the same bit for bit.
        for metric in [Metric::L2, Metric::Ip] {
            let base = vectors(&mut rng, n, dim, true, metric);
            let queries = vectors(&mut rng, 150, dim, true, metric);
            let graph = test_graph(&base, metric, degree, Some((n / 8, 8)));
            let index = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
            let got = index.search(&queries, params(50, 1024), None).unwrap();
            assert_exact(&got, &reference(&base, metric, &queries, 50, None), &format!("{metric} d{dim} integers"));
        }
    }
}

/// Half-precision rows: where N holds every vertex (full ef) the re-ranking gives the
/// single-precision search's answer bit for bit; at small ef the recall stays within 0.01 of it
/// and every distance returned is the full-precision one; an index with a component beyond
/// half's range is refused at every half-precision search (by any route), naming the row, or
/// the vector in the caller's numbering.
#[test]
fn half_precision_rows_rank_by_exact_distances() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(11);
    let half = |k, ef| params(k, ef).with_precision(Precision::Half);
    for (dim, n, degree) in [(3, 1000, 16), (100, 1000, 32), (128, 1000, 16), (960, 600, 32)] {
        for metric in Metric::ALL {
            let what = format!("{metric} d{dim} n{n} deg{degree}");
            let base = vectors(&mut rng, n, dim, false, metric);
            let queries = vectors(&mut rng, 150, dim, false, metric);
            let graph = test_graph(&base, metric, degree, Some((n / 8, 8)));
            let index = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
            for (k, ef) in [(10, 1024), (1, n)] {
                let single = index.search(&queries, params(k, ef), None).unwrap();
                assert_eq!(index.search(&queries, half(k, ef), None).unwrap(), single, "{what} k{k} ef{ef}");
            }
            // Every vertex's full-precision distance, by the full-ef search.
            let all = index.search(&queries, params(n, n), None).unwrap();
            let want = reference(&base, metric, &queries, 10, None);
            let single = index.search(&queries, params(10, 32), None).unwrap();
            let got = index.search(&queries, half(10, 32), None).unwrap();
            let hits = |found: &Neighbours| -> usize {
                (0..queries.len())
                    .map(|q| found.ids_of(q).iter().filter(|id| want.ids_of(q).contains(id)).count())
                    .sum()
            };
            let total = (10 * queries.len()) as f64;
            let (r_half, r_single) = (hits(&got) as f64 / total, hits(&single) as f64 / total);
            eprintln!("{what}: recall@10 at ef 32, half {r_half:.4}, single {r_single:.4}");
            assert!(r_half >= r_single - 0.01, "{what}: half {r_half}, single {r_single}");
            for q in 0..queries.len() {
                for (id, d) in got.ids_of(q).iter().zip(got.distances_of(q)) {
                    let at = all.ids_of(q).iter().position(|x| x == id).unwrap();
                    assert_eq!(d.to_bits(), all.distances_of(q)[at].to_bits(), "{what}: query {q}, id {id}");
                }
            }
        }
    }
    let mut data = vectors(&mut rng, 200, 8, false, Metric::L2).as_slice().to_vec();
    data[17 * 8 + 3] = 70000.0;
    let base = Vectors::new(8, data).unwrap();
    let graph = test_graph(&base, Metric::L2, 8, None);
    let index = GpuIndex::new(gpu, &base, Metric::L2, &graph).unwrap();
    assert!(index.search(&base, params(5, 32), None).is_ok(), "single precision searches it");
    let e = index.search(&base, half(5, 32), None).unwrap_err().to_string();
    assert!(e.contains("row 17 has a component of 70000"), "{e}");
    // Refused again (found once, at the first half-precision search), also where a tight
    // filter would route the search to brute force, and named in the caller's numbering.
    let one = Allowed::from_fn(200, |i| i == 3);
    let e = index.search(&base, half(1, 32), Some(&one)).unwrap_err().to_string();
    assert!(e.contains("row 17 has a component of 70000"), "{e}");
    let ids: Vec<u32> = (0..200).map(|i| 1000 + i).collect();
    let named = GpuIndex::new(gpu, &base, Metric::L2, &graph).unwrap().with_ids(&ids).unwrap();
    let e = named.search(&base, half(5, 32), None).unwrap_err().to_string();
    assert!(e.contains("vector 1017 has a component of 70000"), "{e}");
}

/// The search follows GANNS' definition step by step at small ef, where it is approximate:
/// on small integers the GPU's answer equals the CPU's run of the same definition exactly.
#[test]
fn search_follows_the_ganns_definition() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(2);
    for (dim, n, degree) in [(3, 3000, 16), (100, 3000, 32), (128, 2000, 20), (960, 1000, 64)] {
        for metric in [Metric::L2, Metric::Ip] {
            let base = vectors(&mut rng, n, dim, true, metric);
            let queries = vectors(&mut rng, 300, dim, true, metric);
            for upper in [None, Some((n / 10, 6))] {
                let graph = test_graph(&base, metric, degree, upper);
                let index = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
                for (k, ef) in [(1, 1), (10, 10), (10, 33), (16, 64), (50, 100), (100, 300)] {
                    let what = format!("{metric} d{dim} deg{degree} upper {upper:?} k{k} ef{ef}");
                    let got = index.search(&queries, params(k, ef), None).unwrap();
                    let want = ganns_all(&base, metric, &graph, &queries, ef, k, None);
                    assert_exact(&got, &want, &what);
                    // Filtered, on the graph as asked: the first k passing of N's first ef.
                    let allowed = Allowed::from_fn(n, |i| i % 3 != 1);
                    let got = index.search_graph(&queries, params(k, ef), Some(&allowed)).unwrap();
                    assert_passing(&got, &allowed, &what);
                    assert_exact(&got, &ganns_all(&base, metric, &graph, &queries, ef, k, Some(&allowed)), &what);
                }
            }
        }
    }
}

/// (b) GPU brute force equals the reference, with and without a filter, for k of every room
/// of its lists (1 to 1000), on integers (exact) and floats (to rounding).
#[test]
fn brute_force_is_exact() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(3);
    for (dim, n) in [(3, 5000), (100, 5000), (128, 6000), (960, 2000)] {
        for metric in Metric::ALL {
            for integer in [true, false] {
                if integer && metric == Metric::Cos {
                    continue;
                }
                let base = vectors(&mut rng, n, dim, integer, metric);
                let queries = vectors(&mut rng, 77, dim, integer, metric);
                let device = DeviceVectors::upload(gpu, &base).unwrap();
                let sparse = Allowed::from_fn(n, |i| i % 7 == 3);
                let few = Allowed::from_fn(n, |i| i % 1000 == 5);
                for k in [1, 10, 50, 100, 200, 500, 1000] {
                    for (name, allowed) in [("all", None), ("1/7", Some(&sparse)), ("few", Some(&few))] {
                        let what = format!("{metric} d{dim} n{n} integers {integer} k{k} filter {name}");
                        let got = brute_force(gpu, &device, metric, &queries, k, allowed).unwrap();
                        let want = reference(&base, metric, &queries, k, allowed);
                        if let Some(a) = allowed {
                            assert_passing(&got, a, &what);
                        }
                        if integer {
                            assert_exact(&got, &want, &what);
                        } else {
                            assert_close(&got, &want, &base, &queries, metric, &what);
                        }
                    }
                }
            }
        }
    }
}

/// (c) Filtered search never returns a failing id: by brute force where the filter passes few
/// (exact), on the widened graph search where it passes many (as defined), and at ef ≥ n on
/// the graph the filtered brute-force answer.
#[test]
fn filtered_search_returns_only_passing_ids() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(4);
    for (dim, metric) in [(32, Metric::L2), (100, Metric::Ip), (64, Metric::L2)] {
        let n = 6000;
        let base = vectors(&mut rng, n, dim, true, metric);
        let queries = vectors(&mut rng, 200, dim, true, metric);
        let graph = test_graph(&base, metric, 16, Some((600, 8)));
        let index = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
        let filters = [
            Allowed::from_fn(n, |i| i % 2 == 0),
            Allowed::from_fn(n, |i| (i * 7919) % 10 < 9),
            Allowed::from_fn(n, |i| i % 50 == 0),
            Allowed::from_fn(n, |i| i < 5),
            Allowed::from_fn(n, |_| false),
        ];
        for allowed in &filters {
            for (k, ef) in [(10, 16), (10, 64), (1, 20), (20, 40)] {
                let what = format!("{metric} d{dim} k{k} ef{ef} passing {}", allowed.count);
                let got = index.search(&queries, params(k, ef), Some(allowed)).unwrap();
                assert_passing(&got, allowed, &what);
                let want = match route(Some(allowed), k, ef, 16) {
                    Route::Graph { ef } => ganns_all(&base, metric, &graph, &queries, ef, k, Some(allowed)),
                    Route::Brute => reference(&base, metric, &queries, k, Some(allowed)),
                };
                assert_exact(&got, &want, &what);
            }
        }
        // Both routes were taken above.
        assert!(matches!(route(Some(&filters[0]), 10, 16, 16), Route::Graph { ef: 32 }));
        assert_eq!(route(Some(&filters[2]), 10, 16, 16), Route::Brute);
    }
    // At ef ≥ n the graph search under a filter is the filtered brute force.
    let n = 1000;
    for metric in Metric::ALL {
        let base = vectors(&mut rng, n, 48, false, metric);
        let queries = vectors(&mut rng, 100, 48, false, metric);
        let index = GpuIndex::new(gpu, &base, metric, &test_graph(&base, metric, 16, Some((100, 8)))).unwrap();
        for allowed in [Allowed::from_fn(n, |i| i % 3 == 0), Allowed::from_fn(n, |i| i % 97 == 1)] {
            let what = format!("{metric} full ef, passing {}", allowed.count);
            let got = index.search_graph(&queries, params(20, 1024), Some(&allowed)).unwrap();
            assert_passing(&got, &allowed, &what);
            let want = reference(&base, metric, &queries, 20, Some(&allowed));
            assert_close(&got, &want, &base, &queries, metric, &what);
            let routed = index.search(&queries, params(20, 1000), Some(&allowed)).unwrap();
            assert_close(&routed, &want, &base, &queries, metric, &what);
        }
    }
}

/// (d) 20,000 queries in batches of any size, or one at a time, get the same answers.
#[test]
fn batches_do_not_change_answers() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(5);
    let (n, dim, metric) = (3000, 96, Metric::L2);
    let base = vectors(&mut rng, n, dim, false, metric);
    let queries = vectors(&mut rng, 20_000, dim, false, metric);
    let graph = test_graph(&base, metric, 32, Some((300, 8)));
    let mut index = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
    let p = params(10, 64);
    let whole = index.search(&queries, p, None).unwrap();
    let brute_whole = index.brute(&queries, 10, None).unwrap();
    let allowed = Allowed::from_fn(n, |i| i % 4 != 0);
    let filtered_whole = index.search(&queries, p, Some(&allowed)).unwrap();
    for batch in [3000, 7, 1] {
        if batch == 1 {
            // One call per query, each its own batch.
            let start = Instant::now();
            let mut one = Neighbours { k: 10, ids: vec![], distances: vec![] };
            for q in 0..queries.len() {
                let row = Vectors::new(dim, queries.row(q).to_vec()).unwrap();
                let got = index.search(&row, p, None).unwrap();
                one.ids.extend(got.ids);
                one.distances.extend(got.distances);
            }
            eprintln!("20,000 single-query searches in {:.2} s", start.elapsed().as_secs_f64());
            assert_exact(&one, &whole, "one query a call");
            continue;
        }
        index.set_batch(Some(batch));
        assert_exact(&index.search(&queries, p, None).unwrap(), &whole, &format!("batches of {batch}"));
        assert_exact(&index.brute(&queries, 10, None).unwrap(), &brute_whole, &format!("brute, batches of {batch}"));
        let got = index.search(&queries, p, Some(&allowed)).unwrap();
        assert_exact(&got, &filtered_whole, &format!("filtered, batches of {batch}"));
    }
    // And the whole answers are right: the brute force exactly, the search close to it.
    let sample = Vectors::new(dim, queries.as_slice()[..500 * dim].to_vec()).unwrap();
    let want = reference(&base, metric, &sample, 10, None);
    let got =
        Neighbours { k: 10, ids: brute_whole.ids[..5000].to_vec(), distances: brute_whole.distances[..5000].to_vec() };
    assert_close(&got, &want, &base, &sample, metric, "brute force of 20,000");
    let found = Neighbours { k: 10, ids: whole.ids[..5000].to_vec(), distances: whole.distances[..5000].to_vec() };
    let recall = subgraph_ann::recall(&found, &want.ids, 10, 10).unwrap();
    eprintln!("recall@10 at ef 64 on the test graph: {recall:.4}");
    assert!(recall > 0.5, "recall@10 {recall}");
}

/// An index that answers in the caller's numbering gives the answers of one that does not,
/// mapped: the graph search (both precisions, with and without a filter), the brute force, and
/// a filter tight enough to be routed to the brute force.
#[test]
fn caller_ids_map_every_answer() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(9);
    let (n, dim, metric) = (3000, 32, Metric::L2);
    let base = vectors(&mut rng, n, dim, true, metric);
    let queries = vectors(&mut rng, 500, dim, true, metric);
    let graph = test_graph(&base, metric, 16, Some((300, 8)));
    let plain = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
    let ids: Vec<u32> = (0..n as u32).map(|i| (i * 7919) % n as u32).collect();
    let mapped = GpuIndex::new(gpu, &base, metric, &graph).unwrap().with_ids(&ids).unwrap();
    let map = |mut found: Neighbours| {
        found.map_ids(&ids);
        found
    };
    let some = Allowed::from_fn(n, |i| i % 3 != 0);
    let tight = Allowed::from_fn(n, |i| i % 500 == 7);
    assert_eq!(route(Some(&tight), 10, 64, 16), Route::Brute, "the tight filter goes to brute force");
    for precision in [Precision::Single, Precision::Half] {
        for allowed in [None, Some(&some), Some(&tight)] {
            let p = params(10, 64).with_precision(precision);
            let want = map(plain.search(&queries, p, allowed).unwrap());
            assert_exact(&mapped.search(&queries, p, allowed).unwrap(), &want, &format!("{precision:?}, {allowed:?}"));
        }
    }
    assert_exact(&mapped.brute(&queries, 10, None).unwrap(), &map(plain.brute(&queries, 10, None).unwrap()), "brute");
    let e = GpuIndex::new(gpu, &base, metric, &graph).unwrap().with_ids(&ids[1..]).err().unwrap().to_string();
    assert!(e.contains("2999 ids for an index of 3000 vectors"), "{e}");
}

/// (e) Bad inputs are one clear error each, never a panic.
#[test]
fn bad_inputs_are_errors() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(6);
    let (n, metric) = (200, Metric::L2);
    let base = vectors(&mut rng, n, 8, false, metric);
    let graph = test_graph(&base, metric, 8, Some((20, 4)));
    let index = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
    let queries = vectors(&mut rng, 5, 8, false, metric);
    let wrong = vectors(&mut rng, 5, 7, false, metric);
    let err = |r: subgraph_ann::Result<Neighbours>| r.unwrap_err().to_string();
    assert!(err(index.search(&wrong, params(5, 10), None)).contains("dimension 7, the index 8"));
    assert!(err(index.brute(&wrong, 5, None)).contains("dimension 7, the index 8"));
    assert!(err(index.search(&queries, params(201, 300), None)).contains("k 201 is larger than the 200 vectors"));
    assert!(err(index.brute(&queries, 201, None)).contains("k 201"));
    assert!(err(index.search(&queries, params(0, 10), None)).contains("k must be at least 1"));
    assert!(err(index.search(&queries, params(10, 5), None)).contains("ef 5 is smaller than k 10"));
    assert!(err(index.search(&queries, params(10, 1025), None)).contains("ef 1025"));
    let short = Allowed::from_fn(n - 1, |_| true);
    assert!(err(index.search(&queries, params(5, 10), Some(&short))).contains("the filter covers 199 ids"));
    assert!(err(index.brute(&queries, 5, Some(&short))).contains("the filter covers 199 ids"));
    let big = vectors(&mut rng, 1100, 8, false, metric);
    let device = DeviceVectors::upload(gpu, &big).unwrap();
    assert!(err(brute_force(gpu, &device, metric, &queries, 1025, None)).contains("k 1025"));
    assert!(err(brute_force(gpu, &device, metric, &wrong, 5, None)).contains("dimension 7"));
    assert!(err(brute_batched(gpu, &device, metric, &queries, 0, None, Some(2))).contains("k 0"));
    // A graph that does not fit its vectors.
    let other = vectors(&mut rng, n + 1, 8, false, metric);
    let e = GpuIndex::new(gpu, &other, metric, &graph).err().unwrap().to_string();
    assert!(e.contains("the graph has 200 vertices, the vectors 201"), "{e}");
    let mut broken = graph.clone();
    broken.layers[0].adjacency[5] = n as u32;
    let e = GpuIndex::new(gpu, &base, metric, &broken).err().unwrap().to_string();
    assert!(e.contains("neighbour 200 is not a vertex"), "{e}");
    // No queries: no rows.
    let none = Vectors::new(8, vec![]).unwrap();
    assert_eq!(index.search(&none, params(5, 10), None).unwrap().ids.len(), 0);
    assert_eq!(index.brute(&none, 5, None).unwrap().ids.len(), 0);
}

/// Rows with repeats, empty slots between neighbours and a vertex with no neighbours at all
/// neither break the search nor make it return an id twice.
#[test]
fn untidy_rows_are_harmless() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(7);
    let (n, dim, metric) = (500, 16, Metric::L2);
    let base = vectors(&mut rng, n, dim, true, metric);
    let queries = vectors(&mut rng, 100, dim, true, metric);
    let mut graph = test_graph(&base, metric, 16, None);
    let tidy = GpuIndex::new(gpu, &base, metric, &graph).unwrap().search(&queries, params(10, 1000), None).unwrap();
    for v in 0..n as u32 {
        let next = (v + 1) % n as u32;
        let row = graph.layers[0].row_mut(v);
        let first = row[0];
        if row[3] != next && first != next {
            row[3] = first; // a repeat
        }
        if row[5] != next {
            row[5] = NONE; // a hole
        }
    }
    // A vertex with no neighbours at all; its successor on the ring stays reachable.
    graph.layers[0].row_mut(250).fill(NONE);
    let row = graph.layers[0].row_mut(249);
    if !row.contains(&251) {
        let free = (0..row.len()).find(|&i| row[i] == NONE || row[..i].contains(&row[i])).unwrap();
        row[free] = 251;
    }
    assert_eq!(reachable(&graph.layers[0]), n, "the untidy graph keeps every vertex reachable");
    let index = GpuIndex::new(gpu, &base, metric, &graph).unwrap();
    let got = index.search(&queries, params(10, 1000), None).unwrap();
    // Every vertex is still reachable through the ring: exact at full ef.
    assert_exact(&got, &tidy, "rows with repeats and holes");
    let want = ganns_all(&base, metric, &graph, &queries, 40, 10, None);
    assert_exact(&index.search(&queries, params(10, 40), None).unwrap(), &want, "repeats at ef 40");
}

/// Task 1: f32 buffers round-trip, and launches check f32 arguments against the declaration.
#[test]
fn float_buffers_and_their_launch_checks() {
    let Some(gpu) = gpu() else { return };
    let host: Vec<f32> = (0..1000).map(|i| i as f32 * 0.25 - 3.0).collect();
    let buf = gpu.upload("f32 test", &host).unwrap();
    assert_eq!(gpu.download(&buf).unwrap(), host);
    assert_eq!(gpu.alloc_zeros::<f32>("f32 zeros", 5).and_then(|b| gpu.download(&b)).unwrap(), vec![0.0; 5]);
    let shape = source::BruteShape::new(4, Metric::L2, 10).unwrap();
    let kernel = gpu.kernel(source::brute_source(shape), source::BRUTE_FINISH).unwrap();
    let words = gpu.upload("u32 test", &[1u32, 2, 3]).unwrap();
    let mut out = gpu.alloc_zeros::<f32>("f32 out", 4).unwrap();
    let e = gpu.launch(&kernel, 1, 32, &mut [Arg::In32(&words), Arg::OutF32(&mut out)]).unwrap_err();
    assert!(matches!(e, CudaError::Mismatch(_)), "{e}");
    let e = gpu
        .launch(
            &kernel,
            1,
            32,
            &mut [Arg::InF32(&buf), Arg::U32(1), Arg::U32(1), Arg::U32(1), Arg::In32(&words), Arg::OutF32(&mut out)],
        )
        .unwrap_err();
    assert!(e.to_string().contains("BufF32"), "{e}");
}

/// Ground truth at the benchmarks' scale: 1M × 128 base, 10,000 queries, k = 100 (target about
/// 10 s on an H200); a sample checked against the CPU.
#[test]
fn brute_force_at_sift_scale() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(8);
    let (n, dim, nq, k) = (1_000_000, 128, 10_000, 100);
    let base = vectors(&mut rng, n, dim, false, Metric::L2);
    let queries = vectors(&mut rng, nq, dim, false, Metric::L2);
    let device = DeviceVectors::upload(gpu, &base).unwrap();
    // Compile and load first, outside the timing.
    let tiny = Vectors::new(dim, queries.row(0).to_vec()).unwrap();
    brute_force(gpu, &device, Metric::L2, &tiny, k, None).unwrap();
    let start = Instant::now();
    let got = brute_force(gpu, &device, Metric::L2, &queries, k, None).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    eprintln!("brute force 1M x 128, 10,000 queries, k = 100: {seconds:.2} s");
    let sample: Vec<usize> = (0..nq).step_by(nq / 16).collect();
    let rows: Vec<f32> = sample.iter().flat_map(|&q| queries.row(q).to_vec()).collect();
    let sampled = Vectors::new(dim, rows).unwrap();
    let want = reference(&base, Metric::L2, &sampled, k, None);
    let mut part = Neighbours::empty(sample.len(), k);
    for (i, &q) in sample.iter().enumerate() {
        part.ids[i * k..(i + 1) * k].copy_from_slice(got.ids_of(q));
        part.distances[i * k..(i + 1) * k].copy_from_slice(got.distances_of(q));
    }
    assert_close(&part, &want, &base, &sampled, Metric::L2, "1M x 128");
    assert!(seconds < 60.0, "{seconds} s");
}

/// The same at GIST's dimension: 1M × 960, 10,000 queries, k = 100.
#[test]
fn brute_force_at_gist_scale() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(9);
    let (n, dim, nq, k) = (1_000_000, 960, 10_000, 100);
    let base = vectors(&mut rng, n, dim, false, Metric::L2);
    let queries = vectors(&mut rng, nq, dim, false, Metric::L2);
    let device = DeviceVectors::upload(gpu, &base).unwrap();
    let tiny = Vectors::new(dim, queries.row(0).to_vec()).unwrap();
    brute_force(gpu, &device, Metric::L2, &tiny, k, None).unwrap();
    let start = Instant::now();
    let got = brute_force(gpu, &device, Metric::L2, &queries, k, None).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    eprintln!("brute force 1M x 960, 10,000 queries, k = 100: {seconds:.2} s");
    let sample = Vectors::new(dim, queries.as_slice()[..4 * dim].to_vec()).unwrap();
    let want = reference(&base, Metric::L2, &sample, k, None);
    let part = Neighbours { k, ids: got.ids[..4 * k].to_vec(), distances: got.distances[..4 * k].to_vec() };
    assert_close(&part, &want, &base, &sample, Metric::L2, "1M x 960");
    assert!(seconds < 120.0, "{seconds} s");
}

/// (g) `--gpus 2`: the engine splits a batch over two GPUs, each with its copy of the index;
/// the answers (search, filtered search and brute force) are those of one GPU, in the queries'
/// order. Skipped on a host with one GPU, unless SUBGRAPH_REQUIRE_GPUS=2.
#[test]
fn two_gpus_give_the_answers_of_one() {
    use subgraph_ann::{BuildParams, Device, Engine, Filter};
    let Some(_) = gpu() else { return };
    let count = Gpu::count().unwrap();
    if count < 2 {
        if std::env::var("SUBGRAPH_REQUIRE_GPUS").as_deref() == Ok("2") {
            panic!("SUBGRAPH_REQUIRE_GPUS=2 but the driver reports {count} GPU");
        }
        eprintln!("skipped: {count} GPU");
        return;
    }
    let mut rng = Rng::new(11);
    let (n, dim, metric) = (5000, 64, Metric::L2);
    let base = vectors(&mut rng, n, dim, true, metric);
    let queries = vectors(&mut rng, 4001, dim, true, metric);
    let (index, _) = Engine::new(Device::Cpu, 1)
        .unwrap()
        .build(base, metric, &BuildParams::new(GraphKind::Hnsw, 32).unwrap(), None)
        .unwrap();
    let (one, two) = (Engine::new(Device::Gpu, 1).unwrap(), Engine::new(Device::Gpu, 2).unwrap());
    assert_eq!(two.name(), "gpu x 2");
    let (one, two) = (one.resident(&index).unwrap(), two.resident(&index).unwrap());
    let p = params(10, 64);
    let filter = Filter::Mask((0..n).map(|i| i % 3 != 0).collect());
    for (what, filter) in [("search", None), ("filtered search", Some(&filter))] {
        let want = one.search(&index, queries.clone(), p, filter).unwrap();
        let got = two.search(&index, queries.clone(), p, filter).unwrap();
        assert_exact(&got, &want, &format!("{what} on two GPUs"));
    }
    let want = one.brute_force(&index, queries.clone(), 10, None).unwrap();
    assert_exact(&two.brute_force(&index, queries, 10, None).unwrap(), &want, "brute force on two GPUs");
}
