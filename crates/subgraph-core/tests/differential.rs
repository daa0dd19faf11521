//! Differential tests: every filter, order, failing-set mode and semantics of the CPU engine,
//! with and without symmetry breaking and counted tails, against the brute-force oracle on
//! random small graphs, directed and undirected, with and without edge labels, 1 to 7 query
//! vertices, on 1 and 4 threads, candidate spaces made eagerly (with and without bitmaps) and
//! lazily; written embeddings and limits included.

use proptest::prelude::*;
use std::sync::{Arc, Mutex};
use subgraph_core::cpu::FailingSets;
use subgraph_core::cpu::{enumerate, enumerate_rest, EngineOptions, Rest};
use subgraph_core::filter::Filter;
use subgraph_core::order::Order;
use subgraph_core::pipeline::{run_query, MatchOptions};
use subgraph_core::plan::{Plan, PlanOptions, Symmetry, Tail};
use subgraph_core::sink::{Control, Output, OutputFormat};
use subgraph_core::space::{Bitmaps, CandidateSpace, SpaceBuild};
use subgraph_core::{oracle, Graph, GraphBuilder, Query, Semantics};

#[derive(Debug, Clone)]
struct Case {
    data: Graph,
    query: Graph,
}

fn graph(directed: bool, labels: Vec<u32>, edges: Vec<(u32, u32, u32)>) -> Graph {
    GraphBuilder::from_parts(labels, edges, directed).build().0
}

/// Xorshift64 from `seed` (not 0): each call steps it and returns the state modulo `m`.
fn xorshift(mut rng: u64) -> impl FnMut(u64) -> u64 {
    move |m: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % m
    }
}

/// A random data graph and a query that is either a random graph or a piece of the data.
fn case() -> impl Strategy<Value = Case> {
    (any::<bool>(), 1u32..=3, 1u32..=2, 2usize..=11, 1usize..=7, any::<bool>(), any::<u64>()).prop_map(
        |(directed, nl, ne, n, qn, from_data, seed)| {
            let mut next = xorshift(seed | 1);
            let labels: Vec<u32> = (0..n).map(|_| next(nl as u64) as u32).collect();
            let mut edges = Vec::new();
            for u in 0..n as u32 {
                for v in 0..n as u32 {
                    if u != v && (directed || u < v) && next(100) < 45 {
                        edges.push((u, v, next(ne as u64) as u32));
                    }
                }
            }
            let data = graph(directed, labels.clone(), edges.clone());
            let query = if from_data {
                // Induced piece of the data on qn random distinct vertices, some edges dropped.
                let mut pick: Vec<u32> = (0..n as u32).collect();
                for i in (1..pick.len()).rev() {
                    pick.swap(i, next(i as u64 + 1) as usize);
                }
                pick.truncate(qn.min(n));
                let ql = pick.iter().map(|&v| labels[v as usize]).collect();
                let mut qe = Vec::new();
                for (a, b, l) in data.edges() {
                    let (pa, pb) = (pick.iter().position(|&x| x == a), pick.iter().position(|&x| x == b));
                    if let (Some(pa), Some(pb)) = (pa, pb) {
                        if next(100) < 80 {
                            qe.push((pa as u32, pb as u32, l));
                        }
                    }
                }
                graph(directed, ql, qe)
            } else {
                let ql = (0..qn).map(|_| next(nl as u64) as u32).collect();
                let mut qe = Vec::new();
                for u in 0..qn as u32 {
                    for v in 0..qn as u32 {
                        if u != v && (directed || u < v) && next(100) < 50 {
                            qe.push((u, v, next(ne as u64) as u32));
                        }
                    }
                }
                graph(directed, ql, qe)
            };
            Case { data, query }
        },
    )
}

const SEMANTICS: [Semantics; 3] = [Semantics::Embed, Semantics::Induced, Semantics::Homomorphism];

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);
impl std::io::Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The embeddings an engine run wrote in text format (the original ids of a renumbered
/// graph), sorted.
fn written(data: &Graph, query: &Graph, opts: &MatchOptions) -> Vec<Vec<u32>> {
    let buf = Buf::default();
    let out = Output::new(Box::new(buf.clone()), OutputFormat::Text).with_ids(data.ids().cloned());
    let r = run_query(data, query.clone(), opts, &Control::unlimited(), Some((&out, "q"))).unwrap();
    out.finish().unwrap();
    let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    let mut rows: Vec<Vec<u32>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(' ').map(|t| t.parse().unwrap()).collect())
        .collect();
    rows.sort();
    assert_eq!(rows.len() as u128, r.embeddings);
    rows
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn counts_equal_oracle(c in case()) {
        let one = pool(1);
        let four = pool(4);
        for semantics in SEMANTICS {
            let q = Query::new(c.query.clone(), &c.data, semantics);
            let Ok(q) = q else { continue };
            let expect = oracle::count(&c.data, &q, semantics);
            let run = |p: &rayon::ThreadPool, opts: &MatchOptions| {
                p.install(|| run_query(&c.data, c.query.clone(), opts, &Control::unlimited(), None)).unwrap()
            };
            for filter in [Filter::Ldf, Filter::Nlf, Filter::Gql, Filter::Cs, Filter::Auto] {
                for order in Order::ALL {
                    // Both ways of making the candidate space, with each failing-set mode, and
                    // an eager space's lists also as bitmaps or not.
                    for (fs, space, bitmaps) in [
                        (FailingSets::On, SpaceBuild::Lazy, Bitmaps::Off),
                        (FailingSets::Off, SpaceBuild::Eager, Bitmaps::On),
                        (FailingSets::On, SpaceBuild::Eager, Bitmaps::On),
                        (FailingSets::On, SpaceBuild::Eager, Bitmaps::Off),
                    ] {
                        let opts = MatchOptions { semantics, filter, order: Some(order), failing_sets: fs, space, bitmaps, ..MatchOptions::default() };
                        for p in [&one, &four] {
                            let r = run(p, &opts);
                            prop_assert_eq!(r.embeddings, expect, "{:?} {:?} {:?} {:?} {:?} {:?}", semantics, filter, order, fs, space, bitmaps);
                            prop_assert_eq!(r.space, Some(space.name()));
                            prop_assert!(r.complete);
                        }
                    }
                }
            }
            // Symmetry breaking and counted tails, on and off, under every order and the
            // planner's choice (one thread over a lazy space, four over bitmaps).
            for symmetry in [Symmetry::On, Symmetry::Off] {
                for tail in [Tail::On, Tail::Off, Tail::Auto] {
                    for order in [None, Some(Order::Ri), Some(Order::Card)] {
                        for (p, space) in [(&one, SpaceBuild::Lazy), (&four, SpaceBuild::Eager)] {
                            let opts = MatchOptions { semantics, symmetry, tail, order, failing_sets: FailingSets::On, space, bitmaps: Bitmaps::On, ..MatchOptions::default() };
                            let r = run(p, &opts);
                            prop_assert_eq!(r.embeddings, expect, "{:?} {:?} {:?} {:?}", semantics, symmetry, tail, order);
                            if !semantics.injective() {
                                prop_assert_eq!(r.multiplier, 1);
                            }
                        }
                    }
                }
            }
            // The written embeddings are exactly the oracle's, with and without symmetry
            // breaking (each representative expanded by the automorphisms).
            for (symmetry, space) in [(Symmetry::On, SpaceBuild::Eager), (Symmetry::Off, SpaceBuild::Eager), (Symmetry::On, SpaceBuild::Lazy)] {
                let opts = MatchOptions { semantics, symmetry, failing_sets: FailingSets::On, space, bitmaps: Bitmaps::On, ..MatchOptions::default() };
                let rows = four.install(|| written(&c.data, &c.query, &opts));
                prop_assert_eq!(rows, oracle::all(&c.data, &q, semantics));
            }
            // A limit returns exactly min(limit, total), marked incomplete when reached; written
            // rows stop at the limit too, each an embedding, none twice (the threads take
            // their written rows towards the limit in batches).
            let mut all = oracle::all(&c.data, &q, semantics);
            all.sort();
            for limit in [1, 1 + expect as u64 / 2] {
                for (symmetry, space) in [(Symmetry::On, SpaceBuild::Lazy), (Symmetry::Off, SpaceBuild::Eager)] {
                    let opts = MatchOptions { semantics, symmetry, limit: Some(limit), space, ..MatchOptions::default() };
                    let r = run(&four, &opts);
                    prop_assert_eq!(r.embeddings, expect.min(limit as u128));
                    prop_assert_eq!(r.complete, (limit as u128) > expect);
                    let mut rows = four.install(|| written(&c.data, &c.query, &opts));
                    prop_assert_eq!(rows.len() as u128, expect.min(limit as u128));
                    rows.dedup();
                    prop_assert_eq!(rows.len() as u128, expect.min(limit as u128));
                    prop_assert!(rows.iter().all(|row| all.binary_search(row).is_ok()));
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// A data graph renumbered (by degree, as `--vertex-order degree` does, or at random)
    /// answers as the graph read: the oracle's counts, with and without symmetry breaking and
    /// counted tails, and the oracle's embeddings written in the file's ids.
    #[test]
    fn renumbered_data_answers_the_same(c in case(), seed in any::<u64>()) {
        let mut next = xorshift(seed | 1);
        let mut shuffled: Vec<u32> = (0..c.data.num_vertices() as u32).collect();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, next(i as u64 + 1) as usize);
        }
        let by_degree = c.data.renumbered(c.data.degree_order());
        // Twice renumbered: the ids go back to the file's through both.
        let twice = by_degree.renumbered(shuffled);
        let four = pool(4);
        for semantics in SEMANTICS {
            let Ok(q) = Query::new(c.query.clone(), &c.data, semantics) else { continue };
            let expect = oracle::count(&c.data, &q, semantics);
            let rows = oracle::all(&c.data, &q, semantics);
            for data in [&by_degree, &twice] {
                let modes = [(Symmetry::Auto, Tail::Auto), (Symmetry::Off, Tail::Off), (Symmetry::Auto, Tail::On)];
                for (symmetry, tail) in modes {
                    let opts = MatchOptions { semantics, symmetry, tail, ..MatchOptions::default() };
                    let run = || run_query(data, c.query.clone(), &opts, &Control::unlimited(), None);
                    let r = four.install(run).unwrap();
                    prop_assert_eq!(r.embeddings, expect, "{:?} {:?} {:?}", semantics, symmetry, tail);
                }
                let opts = MatchOptions { semantics, ..MatchOptions::default() };
                prop_assert_eq!(&four.install(|| written(data, &c.query, &opts)), &rows);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// The memory check's bounds hold for what the candidate space really takes and holds,
    /// eager or (after a complete run has read every list it needs) lazy.
    #[test]
    fn space_bounds_hold(c in case()) {
        let Ok(q) = Query::new(c.query.clone(), &c.data, Semantics::Embed) else { return Ok(()) };
        for filter in [Filter::Ldf, Filter::Gql] {
            let plan = Plan::new(&c.data, &q, PlanOptions { filter, ..PlanOptions::default() }, &Control::unlimited());
            let exact = CandidateSpace::bound(&c.data, &plan, true);
            let loose = CandidateSpace::bound(&c.data, &plan, false);
            prop_assert!(exact.bytes <= loose.bytes);
            let eager = CandidateSpace::build(&c.data, &plan, SpaceBuild::Eager, &Control::unlimited()).unwrap();
            let lazy = CandidateSpace::build(&c.data, &plan, SpaceBuild::Lazy, &Control::unlimited()).unwrap();
            prop_assert_eq!(lazy.edge_count(), 0);
            let a = enumerate(&c.data, &plan, &eager, EngineOptions::default(), &Control::unlimited(), None);
            let b = enumerate(&c.data, &plan, &lazy, EngineOptions::default(), &Control::unlimited(), None);
            prop_assert_eq!(a.embeddings, b.embeddings);
            prop_assert!(lazy.edge_count() <= eager.edge_count());
            // The bitmaps are made within their own budget, beside the lists' bound.
            for space in [&eager, &lazy] {
                prop_assert!(space.memory_bytes() - space.bitmap_bytes() <= exact.bytes);
                prop_assert!(space.bitmap_bytes() <= subgraph_core::space::BITMAP_BYTES);
            }
            let bound = CandidateSpace::bound(&c.data, &plan, false);
            let on = |budget| {
                CandidateSpace::build_with(&c.data, &plan, bound.clone(), SpaceBuild::Eager, (Bitmaps::On, budget), &Control::unlimited())
                    .unwrap()
            };
            let (none, some) = (on(0), on(1 << 20));
            prop_assert_eq!(none.bitmap_bytes(), 0);
            prop_assert!(some.bitmap_bytes() <= 1 << 20);
            for (e, l) in eager.longest_lists().iter().flatten().zip(loose.longest.iter().flatten()) {
                prop_assert!(e <= l);
            }
        }
    }
}

/// An undirected graph of `n` vertices, one label, each pair an edge with probability 1/4
/// (a linear congruential generator from `seed`).
fn random_graph(n: u32, seed: u64) -> Graph {
    let mut s = seed;
    let mut next = move || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 33) as u32
    };
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if next() % 100 < 25 {
                edges.push((u, v, 0));
            }
        }
    }
    graph(false, vec![0; n as usize], edges)
}

/// A search big enough for work donation to split deep levels on several threads.
#[test]
fn many_threads_split_deep_levels() {
    let data = random_graph(70, 12345);
    // A 5-cycle with a chord.
    let query = graph(false, vec![0; 5], vec![(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 4, 0), (4, 0, 0), (0, 2, 0)]);
    for semantics in SEMANTICS {
        let q = Query::new(query.clone(), &data, semantics).unwrap();
        let expect = oracle::count(&data, &q, semantics);
        assert!(expect > 10_000, "{expect}");
        for space in [SpaceBuild::Eager, SpaceBuild::Lazy] {
            let opts = MatchOptions { semantics, space, ..MatchOptions::default() };
            let r = pool(4).install(|| run_query(&data, query.clone(), &opts, &Control::unlimited(), None)).unwrap();
            assert_eq!(r.embeddings, expect, "{semantics:?} {space:?}");
            assert!(r.tasks > 1, "work was split");
        }
    }
}

/// A count stopped again and again by short deadlines, each run going on from the work the
/// last one left (`enumerate_rest`), sums to the oracle's count and the whole run's partial
/// matches per position: on 1 and 4 threads (stops inside donated tasks), every semantics,
/// with and without a counted tail, over both kinds of space.
#[test]
fn stopped_counts_resume_to_the_whole_count() {
    let data = random_graph(70, 977);
    // A 5-cycle with a chord, and a path whose last vertices a tail may count.
    let cycle = graph(false, vec![0; 5], vec![(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 4, 0), (4, 0, 0), (0, 2, 0)]);
    let path = graph(false, vec![0; 5], vec![(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 4, 0)]);
    for (query, tail) in [(&cycle, Tail::Off), (&path, Tail::On)] {
        for semantics in SEMANTICS {
            let q = Query::new(query.clone(), &data, semantics).unwrap();
            let expect = oracle::count(&data, &q, semantics);
            let popts = PlanOptions { semantics, tail, symmetry: Symmetry::Off, ..PlanOptions::default() };
            let plan = Plan::new(&data, &q, popts, &Control::unlimited());
            for build in [SpaceBuild::Eager, SpaceBuild::Lazy] {
                let space = CandidateSpace::build(&data, &plan, build, &Control::unlimited()).unwrap();
                let engine = EngineOptions::default();
                let whole = enumerate(&data, &plan, &space, engine, &Control::unlimited(), None);
                assert_eq!(whole.embeddings, expect, "{semantics:?} {build:?}");
                for threads in [1, 4] {
                    let (mut sum, mut rest) =
                        (None::<subgraph_core::cpu::Outcome>, Rest::whole(plan.candidates[0].len()));
                    let (mut runs, mut budget) = (0, std::time::Duration::from_micros(20));
                    while !rest.is_empty() {
                        let stop = Control::new(Some(std::time::Instant::now() + budget), Default::default());
                        let (out, left) =
                            pool(threads).install(|| enumerate_rest(&data, &plan, &space, engine, &stop, rest));
                        assert!(out.stopped.is_some() || left.is_empty());
                        match &mut sum {
                            Some(s) => s.add(&out),
                            None => sum = Some(out),
                        }
                        (rest, runs, budget) = (left, runs + 1, budget * 5 / 4);
                    }
                    let sum = sum.unwrap();
                    assert!(runs > 2, "{runs} runs: the deadlines stopped too few");
                    assert_eq!(sum.embeddings, expect, "{semantics:?} {build:?} {threads} threads, {runs} runs");
                    assert_eq!(sum.levels, whole.levels, "{semantics:?} {build:?} {threads} threads");
                    // Under a limit, each run takes what is left of it (as the planner's run after
                    // its scout does): the runs reach the limit exactly.
                    let limit = (expect / 2) as u64;
                    let (mut found, mut rest, mut budget) =
                        (0u64, Rest::whole(plan.candidates[0].len()), std::time::Duration::from_micros(20));
                    loop {
                        let stop = Control::new(Some(std::time::Instant::now() + budget), Default::default());
                        let engine = EngineOptions { limit: Some(limit - found), ..engine };
                        let (out, left) =
                            pool(threads).install(|| enumerate_rest(&data, &plan, &space, engine, &stop, rest));
                        found += out.embeddings as u64;
                        if out.stopped == Some(subgraph_core::sink::Stopped::Limit) {
                            break;
                        }
                        assert!(!left.is_empty(), "the whole count passed the limit");
                        (rest, budget) = (left, budget * 5 / 4);
                    }
                    assert_eq!(found, limit, "{semantics:?} {build:?} {threads} threads");
                }
            }
        }
    }
}
