//! `--device auto` (`subgraph::devices`): the GPU is opened only by the first query that
//! goes there, and every query's answer is the CPU engine's. Skips when no GPU is usable,
//! unless SUBGRAPH_REQUIRE_GPU=1; an engine that borrows its GPU ([`Engine::lent`]) is tested
//! without one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use subgraph::{Derived, Engine, GpuOptions, GpuSet, Lender};
use subgraph_core::pipeline::{run_query, MatchOptions};
use subgraph_core::sink::Control;
use subgraph_core::{Graph, GraphBuilder};

/// `--device auto` on `data`, or None (the test skips) where no GPU is there.
fn auto_engine(data: &Arc<Graph>) -> Option<Engine> {
    match Engine::open("auto", data.clone(), GpuOptions::default()).unwrap() {
        Engine::Cpu { why } => {
            if std::env::var("SUBGRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("SUBGRAPH_REQUIRE_GPU=1 but {why:?}");
            }
            eprintln!("skipped: {why:?}");
            None
        }
        engine => Some(engine),
    }
}

/// `n` vertices of one label, a clique on the first six and a path through the next hundred.
fn graph(n: u32) -> Arc<Graph> {
    let mut edges: Vec<(u32, u32, u32)> = (0..6).flat_map(|a| (a + 1..6).map(move |b| (a, b, 0))).collect();
    edges.extend((6..105).map(|a| (a, a + 1, 0)));
    Arc::new(GraphBuilder::from_parts(vec![0; n as usize], edges, false).build().0)
}

fn triangle() -> Graph {
    GraphBuilder::from_parts(vec![0; 3], vec![(0, 1, 0), (1, 2, 0), (0, 2, 0)], false).build().0
}

#[test]
fn auto_opens_the_gpu_only_for_a_query_that_goes_there() {
    let unopened = "when a query first goes there";
    // A query's control holds its stop (the limit reached), so each run has its own.
    let control = Control::unlimited;
    // A small graph under a limit: every query stays on the CPU, and the GPU is never opened.
    let small = graph(200);
    let Some(mut engine) = auto_engine(&small) else { return };
    assert!(engine.describe().contains(unopened), "{}", engine.describe());
    let limited = MatchOptions { limit: Some(7), ..MatchOptions::default() };
    for _ in 0..3 {
        let ran = engine.run(&small, triangle(), &Derived::default(), &limited, &control(), None).unwrap();
        assert!(ran.gpu.is_none() && ran.note.is_none());
        assert_eq!(ran.report.embeddings, 7);
    }
    assert!(engine.describe().contains(unopened), "{}", engine.describe());

    // A graph of 2^20 vertices: the planner sends every query to the GPU; the first opens it.
    let big = graph(1 << 20);
    let Some(mut engine) = auto_engine(&big) else { return };
    let opts = MatchOptions::default();
    let want = run_query(&big, triangle(), &opts, &control(), None).unwrap().embeddings;
    assert_eq!(want, 120, "the six-clique's triangles, each in 3! orders");
    for first in [true, false] {
        let ran = engine.run(&big, triangle(), &Derived::default(), &opts, &control(), None).unwrap();
        assert!(ran.gpu.is_some());
        assert_eq!(ran.report.embeddings, want);
        assert_eq!(ran.note.as_ref().is_some_and(|n| n.contains("opened for this query")), first, "{:?}", ran.note);
    }
    assert!(engine.describe().contains("data graph uploaded in"), "{}", engine.describe());
}

/// A lender with no GPU to lend, counting the queries that asked.
#[derive(Default)]
struct Counting(AtomicUsize);

impl Lender for Counting {
    fn lend(&self) -> Result<Box<GpuSet>, String> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Err("no GPU to lend in this test".into())
    }
}

#[test]
fn a_lent_engine_borrows_only_for_a_query_auto_sends_to_the_gpu() {
    let control = Control::unlimited;
    // A small graph under a limit: `auto` keeps every query on the CPU, and never asks.
    let small = graph(200);
    let lender = Arc::new(Counting::default());
    let limited = MatchOptions { limit: Some(7), ..MatchOptions::default() };
    for _ in 0..3 {
        let mut engine = Engine::lent(small.clone(), GpuOptions::default(), true, lender.clone());
        let ran = engine.run(&small, triangle(), &Derived::default(), &limited, &control(), None).unwrap();
        assert!(ran.gpu.is_none() && ran.note.is_none(), "{:?}", ran.note);
        assert_eq!(ran.report.embeddings, 7);
        assert!(engine.take_lent().is_none());
    }
    assert_eq!(lender.0.load(Ordering::SeqCst), 0);

    // A graph of 2^20 vertices: `auto` sends every query to the GPU, which asks the lender;
    // refused, the query runs on the CPU, saying why, with the CPU's answer.
    let big = graph(1 << 20);
    let opts = MatchOptions::default();
    let mut engine = Engine::lent(big.clone(), GpuOptions::default(), true, lender.clone());
    let ran = engine.run(&big, triangle(), &Derived::default(), &opts, &control(), None).unwrap();
    assert!(ran.gpu.is_none());
    assert_eq!(ran.report.embeddings, 120);
    assert!(ran.note.as_ref().is_some_and(|n| n.contains("no GPU to lend")), "{:?}", ran.note);
    assert_eq!(lender.0.load(Ordering::SeqCst), 1);

    // Under `gpu` every query asks, even on the small graph.
    let mut engine = Engine::lent(small.clone(), GpuOptions::default(), false, lender.clone());
    let ran = engine.run(&small, triangle(), &Derived::default(), &limited, &control(), None).unwrap();
    assert_eq!((ran.report.embeddings, lender.0.load(Ordering::SeqCst)), (7, 2));
}
