//! The GPU join engine (GSI §V–§VI) against the CPU engine: random small graphs in every
//! semantics, directed and undirected, 1–3 edge labels, 1–6 query vertices, in every ablation
//! combination (refined/plain device signature filter or host filter × PCSR/CSR/FSIG's A ×
//! Prealloc-Combine/two-step × write cache × load balancing); skewed graphs whose heavy rows
//! take the block and grid layers; chunked processing under a small memory budget; written
//! embeddings; limits and deadlines; the device refinement against a host reference; GpSM's
//! strategy in its ablation combinations, restricted, limited and split. Skips when
//! no GPU is usable, unless SUBGRAPH_REQUIRE_GPU=1.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use subgraph_core::filter::Bitset;
use subgraph_core::order::Order;
use subgraph_core::pipeline::{run_query, MatchOptions};
use subgraph_core::plan::{Symmetry, Tail};
use subgraph_core::sink::{read_binary, BinarySection, Control, Output, OutputFormat, Stopped};
use subgraph_core::tree::TreeQuery;
use subgraph_core::{Graph, GraphBuilder, Query, Semantics};
use subgraph_cuda::{CudaError, Gpu};
use subgraph_gpu::fsig::refine;
use subgraph_gpu::ggq::ids::{Ask, IdPlan, CHUNK, PHASE_SPACE};
use subgraph_gpu::gpsm::options::GpsmOptions;
use subgraph_gpu::gsi::filter::filter_host;
use subgraph_gpu::gsi::signature::{Signature, SignatureTable};
use subgraph_gpu::{
    CandidateFilter, DepthFirst, GpuEngine, GpuError, GpuOptions, GpuReport, LoadBalance, OutputScheme, Park,
    ParkLayout, Partitions, Spill, Strategy, Structure,
};

#[path = "../src/testtree.rs"]
mod testtree;

const SEMANTICS: [Semantics; 3] = [Semantics::Embed, Semantics::Induced, Semantics::Homomorphism];

fn engine(data: &Graph, opts: &GpuOptions) -> Option<GpuEngine> {
    match GpuEngine::new(std::sync::Arc::new(data.clone()), opts) {
        Ok(e) => Some(e),
        Err(GpuError::Cuda(CudaError::Unavailable(why))) => {
            if std::env::var("SUBGRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("SUBGRAPH_REQUIRE_GPU=1 but {why}");
            }
            eprintln!("skipped: {why}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// Every ablation combination.
fn combos() -> Vec<GpuOptions> {
    let mut out = Vec::new();
    for filter in [CandidateFilter::Refined, CandidateFilter::Signature, CandidateFilter::Host] {
        for structure in [Structure::Pcsr, Structure::Csr, Structure::Aux] {
            for output in [OutputScheme::PreallocCombine, OutputScheme::TwoStep] {
                for write_cache in [true, false] {
                    for load_balance in [LoadBalance::Model, LoadBalance::Gsi, LoadBalance::Off] {
                        let g =
                            GpuOptions { filter, structure, output, write_cache, load_balance, ..Default::default() };
                        out.push(g);
                    }
                }
            }
        }
    }
    out
}

fn graph(directed: bool, labels: Vec<u32>, edges: Vec<(u32, u32, u32)>) -> Graph {
    GraphBuilder::from_parts(labels, edges, directed).build().0
}

/// xorshift, as in the core differential test.
struct Rng(u64);

impl Rng {
    fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}

/// The core differential test's generator: a random data graph and a query that is either a
/// random graph or a piece of the data.
fn case(seed: u64) -> (Graph, Graph) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let directed = rng.below(2) == 1;
    let nl = 1 + rng.below(3) as u32;
    let ne = 1 + rng.below(3) as u32;
    let n = 2 + rng.below(10) as usize;
    let qn = 1 + rng.below(6) as usize;
    let from_data = rng.below(2) == 1;
    let labels: Vec<u32> = (0..n).map(|_| rng.below(nl as u64) as u32).collect();
    let mut edges = Vec::new();
    for u in 0..n as u32 {
        for v in 0..n as u32 {
            if u != v && (directed || u < v) && rng.below(100) < 45 {
                edges.push((u, v, rng.below(ne as u64) as u32));
            }
        }
    }
    let data = graph(directed, labels.clone(), edges);
    let query = if from_data {
        let mut pick: Vec<u32> = (0..n as u32).collect();
        for i in (1..pick.len()).rev() {
            pick.swap(i, rng.below(i as u64 + 1) as usize);
        }
        pick.truncate(qn.min(n));
        let ql = pick.iter().map(|&v| labels[v as usize]).collect();
        let mut qe = Vec::new();
        for (a, b, l) in data.edges() {
            let pa = pick.iter().position(|&x| x == a);
            let pb = pick.iter().position(|&x| x == b);
            if let (Some(pa), Some(pb)) = (pa, pb) {
                if rng.below(100) < 80 {
                    qe.push((pa as u32, pb as u32, l));
                }
            }
        }
        graph(directed, ql, qe)
    } else {
        let ql = (0..qn).map(|_| rng.below(nl as u64) as u32).collect();
        let mut qe = Vec::new();
        for u in 0..qn as u32 {
            for v in 0..qn as u32 {
                if u != v && (directed || u < v) && rng.below(100) < 50 {
                    qe.push((u, v, rng.below(ne as u64) as u32));
                }
            }
        }
        graph(directed, ql, qe)
    };
    (data, query)
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

fn rows_of(buf: &Buf) -> Vec<Vec<u32>> {
    let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    let mut rows: Vec<Vec<u32>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(' ').map(|t| t.parse().unwrap()).collect())
        .collect();
    rows.sort();
    rows
}

/// Sorted embeddings written by the CPU engine, and its count.
fn cpu_rows(data: &Graph, query: &Graph, opts: &MatchOptions) -> (Vec<Vec<u32>>, u128) {
    let buf = Buf::default();
    let out = Output::new(Box::new(buf.clone()), OutputFormat::Text);
    let r = run_query(data, query.clone(), opts, &Control::unlimited(), Some((&out, "q"))).unwrap();
    out.finish().unwrap();
    (rows_of(&buf), r.embeddings)
}

fn gpu_rows(
    engine: &mut GpuEngine,
    query: &Graph,
    opts: &MatchOptions,
    gpu_opts: &GpuOptions,
) -> (Vec<Vec<u32>>, u128, bool) {
    let buf = Buf::default();
    let out = Output::new(Box::new(buf.clone()), OutputFormat::Text);
    let r = engine.run_query(query.clone(), opts, gpu_opts, &Control::unlimited(), Some((&out, "q"))).unwrap();
    out.finish().unwrap();
    (rows_of(&buf), r.report.embeddings, r.report.complete)
}

fn cpu_count(data: &Graph, query: &Graph, opts: &MatchOptions) -> u128 {
    let r = run_query(data, query.clone(), opts, &Control::unlimited(), None).unwrap();
    assert!(r.complete);
    r.embeddings
}

fn gpu_count(engine: &mut GpuEngine, query: &Graph, opts: &MatchOptions, g: &GpuOptions) -> u128 {
    let r = engine.run_query(query.clone(), opts, g, &Control::unlimited(), None).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.report.complete);
    r.report.embeddings
}

#[test]
fn random_graphs_equal_the_cpu_in_every_ablation() {
    let combos = combos();
    let mut checked = 0u64;
    let t = Instant::now();
    for seed in 0..300u64 {
        let (data, query) = case(seed);
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        for semantics in SEMANTICS {
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            if subgraph_core::Query::new(query.clone(), &data, semantics).is_err() {
                assert!(gpu
                    .run_query(query.clone(), &opts, &GpuOptions::default(), &Control::unlimited(), None)
                    .is_err());
                continue;
            }
            let (rows, expect) = cpu_rows(&data, &query, &opts);
            for (i, g) in combos.iter().enumerate() {
                // Orders, symmetry breaking, counted tails and depth-first counting vary with
                // the combination.
                let k = seed + i as u64;
                let order = [None, Some(Order::Gsi), Some(Order::Card), Some(Order::Cfl)][(k % 4) as usize];
                let symmetry = [Symmetry::Auto, Symmetry::Off][(k / 3 % 2) as usize];
                let tail = [Tail::On, Tail::Auto, Tail::Off][(k / 6 % 3) as usize];
                let depth_first = [DepthFirst::On, DepthFirst::Auto, DepthFirst::Off][(k / 18 % 3) as usize];
                let park = [Park::Auto, Park::On, Park::Off][(k / 54 % 3) as usize];
                let dfs_steal = [true, false][(k / 162 % 2) as usize];
                let o = MatchOptions { order, symmetry, tail, ..opts };
                let g = GpuOptions { depth_first, park, dfs_steal, ..*g };
                let got = gpu_count(&mut gpu, &query, &o, &g);
                assert_eq!(got, expect, "seed {seed} {semantics:?} {g:?} {order:?} {symmetry:?} {tail:?}");
                checked += 1;
            }
            let g = combos[seed as usize % combos.len()];
            let (got, n, complete) = gpu_rows(&mut gpu, &query, &opts, &g);
            assert!(complete);
            assert_eq!(n, expect);
            assert_eq!(got, rows, "written embeddings, seed {seed} {semantics:?} {g:?}");
            // A limit gives exactly min(limit, total), incomplete when reached.
            let limit = 1 + expect as u64 / 2;
            let lopts = MatchOptions { limit: Some(limit), ..opts };
            let r = gpu.run_query(query.clone(), &lopts, &g, &Control::unlimited(), None).unwrap();
            assert_eq!(r.report.embeddings, expect.min(limit as u128), "seed {seed}");
            assert_eq!(r.report.complete, (limit as u128) > expect, "seed {seed}");
        }
    }
    eprintln!("{checked} GPU runs equal the CPU in {:.1}s", t.elapsed().as_secs_f64());
}

/// `query` under `g` counted, written, and stopped at `limit`, each equal to the CPU's `rows`
/// (`expect` embeddings); the counting run's report.
fn equals_the_cpu(
    gpu: &mut GpuEngine,
    query: &Graph,
    opts: &MatchOptions,
    g: &GpuOptions,
    (rows, expect): (&[Vec<u32>], u128),
    limit: u64,
    what: &str,
) -> GpuReport {
    let r = gpu.run_query(query.clone(), opts, g, &Control::unlimited(), None).unwrap();
    assert_eq!(r.report.embeddings, expect, "{what}");
    let (got, n, complete) = gpu_rows(gpu, query, opts, g);
    assert!(complete && n == expect && got == rows, "written rows, {what}");
    let lopts = MatchOptions { limit: Some(limit), ..*opts };
    let l = gpu.run_query(query.clone(), &lopts, g, &Control::unlimited(), None).unwrap();
    assert_eq!(l.report.embeddings, expect.min(limit as u128), "limit, {what}");
    r
}

#[test]
fn fsig_equals_the_cpu() {
    // FSIG's strategy as composed (refined filter, A, CFL, breadth first, host spill on its
    // rule), with the spill forced on every level, and with depth-first counting asked for.
    let variants = [
        GpuOptions { strategy: Strategy::Fsig, ..GpuOptions::default() },
        GpuOptions { strategy: Strategy::Fsig, park: Park::On, memory_budget: Some(1 << 12), ..GpuOptions::default() },
        GpuOptions { strategy: Strategy::Fsig, depth_first: DepthFirst::On, ..GpuOptions::default() },
    ];
    let mut checked = 0;
    for seed in 0..200u64 {
        let (data, query) = case(seed);
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        for semantics in SEMANTICS {
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            if subgraph_core::Query::new(query.clone(), &data, semantics).is_err() {
                continue;
            }
            let (rows, expect) = cpu_rows(&data, &query, &opts);
            for g in &variants {
                let what = format!("seed {seed} {semantics:?} {g:?}");
                let r = equals_the_cpu(&mut gpu, &query, &opts, g, (&rows, expect), 1 + expect as u64 / 3, &what);
                assert_eq!(r.strategy, "fsig", "{what}");
                assert!(r.report.order == "cfl" || query.num_vertices() < 2 || expect == 0, "{}", r.report.order);
                checked += 1;
            }
        }
    }
    eprintln!("{checked} FSIG runs equal the CPU");
}

#[test]
fn parked_tables_equal_the_cpu() {
    // FSIG's host spill on every table with a level below its next one, in blocks of a few
    // rows (a 4 KiB chunk budget): counts, written rows and limits equal the CPU's, with the
    // tables parked row after row and (SGSI's) column after column, their blocks copied one
    // ahead and when read.
    let mut spill = [Spill::default(); 2];
    let t = Instant::now();
    for seed in 0..300u64 {
        let (data, query) = case(seed);
        if query.num_vertices() < 3 {
            continue;
        }
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        for semantics in [Semantics::Embed, Semantics::Homomorphism] {
            let opts = MatchOptions { semantics, symmetry: Symmetry::Off, ..MatchOptions::default() };
            if subgraph_core::Query::new(query.clone(), &data, semantics).is_err() {
                continue;
            }
            let (rows, expect) = cpu_rows(&data, &query, &opts);
            let layout = [ParkLayout::Rows, ParkLayout::Columns][seed as usize % 2];
            let on = GpuOptions {
                park: Park::On,
                park_layout: layout,
                pipeline: seed % 4 < 2,
                memory_budget: Some(1 << 12),
                depth_first: DepthFirst::Off,
                ..GpuOptions::default()
            };
            let what = format!("seed {seed} {semantics:?} {layout:?}");
            let r = equals_the_cpu(&mut gpu, &query, &opts, &on, (&rows, expect), 1 + expect as u64 / 2, &what);
            spill[seed as usize % 2] = spill[seed as usize % 2] + r.spill;
            let off = GpuOptions { park: Park::Off, ..on };
            let r = gpu.run_query(query.clone(), &opts, &off, &Control::unlimited(), None).unwrap();
            assert_eq!((r.report.embeddings, r.spill), (expect, Spill::default()), "seed {seed}");
        }
    }
    // The spill really ran in both layouts (tables made column by column only under
    // `columns`), tables came back in several blocks, and bytes crossed both ways.
    for s in spill {
        assert!(s.tables > 0 && s.blocks > s.tables && s.bytes > 0, "{spill:?}");
    }
    assert!(spill[0].columnar == 0 && spill[1].columnar > 0, "{spill:?}");
    eprintln!("parked (rows, columns): {spill:?} in {:.1}s", t.elapsed().as_secs_f64());
}

/// Restricts about half of `query`'s vertices to random sets of about 60% of `data`'s vertices
/// (as a pattern's property tests do).
fn restrict_randomly(query: &mut Graph, data: &Graph, seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    let n = data.num_vertices();
    let allowed = (0..query.num_vertices())
        .map(|_| {
            (rng.below(2) == 0).then(|| {
                let mut set = Bitset::new(n);
                (0..n as u32).filter(|_| rng.below(100) < 60).for_each(|v| set.insert(v));
                Arc::new(set)
            })
        })
        .collect();
    query.restrict(allowed);
}

/// Queries restricted to given data vertices (a pattern's property tests): every filter, with
/// and without depth-first counting, counts and writes what the CPU does, and the restrictions
/// change the answer on some of them (so the test sees whether they are applied).
#[test]
fn restricted_queries_equal_the_cpu() {
    let mut changed = 0;
    for seed in 0..120u64 {
        let (data, mut query) = case(seed);
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        let plain = query.clone();
        restrict_randomly(&mut query, &data, seed);
        for semantics in SEMANTICS {
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            if subgraph_core::Query::new(query.clone(), &data, semantics).is_err() {
                continue;
            }
            let (rows, expect) = cpu_rows(&data, &query, &opts);
            changed += (expect != cpu_count(&data, &plain, &opts)) as u32;
            for filter in [CandidateFilter::Refined, CandidateFilter::Signature, CandidateFilter::Host] {
                for depth_first in [DepthFirst::On, DepthFirst::Off] {
                    let g = GpuOptions { filter, depth_first, ..GpuOptions::default() };
                    let o = MatchOptions { tail: Tail::On, ..opts };
                    assert_eq!(gpu_count(&mut gpu, &query, &o, &g), expect, "seed {seed} {semantics:?} {g:?}");
                }
                let g = GpuOptions { filter, ..GpuOptions::default() };
                let (got, count, complete) = gpu_rows(&mut gpu, &query, &opts, &g);
                assert!(complete && count == expect && got == rows, "rows, seed {seed} {semantics:?} {filter:?}");
            }
        }
    }
    assert!(changed > 20, "the restrictions changed only {changed} answers");
}

/// GpSM's strategy counts and writes what the CPU engine does: random graphs (directed and
/// edge-labelled, queries of several components) in every semantics, with and without its
/// refinement and simplified query, restricted query vertices, limits; and on hub graphs with
/// a step budget small enough that its steps run on halves of their rows.
#[test]
fn gpsm_equals_the_cpu() {
    let variants = [
        GpsmOptions::default(),
        GpsmOptions { rounds: 0, ..GpsmOptions::default() },
        GpsmOptions { rounds: 10, min_degree: 1 },
    ];
    let mut checked = 0;
    let t = Instant::now();
    for seed in 0..300u64 {
        let (data, mut query) = case(seed);
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        if seed % 3 == 0 {
            restrict_randomly(&mut query, &data, seed);
        }
        for semantics in SEMANTICS {
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            if subgraph_core::Query::new(query.clone(), &data, semantics).is_err() {
                continue;
            }
            let (rows, expect) = cpu_rows(&data, &query, &opts);
            for gpsm in variants {
                let g = GpuOptions { strategy: Strategy::Gpsm, gpsm, ..GpuOptions::default() };
                assert_eq!(gpu_count(&mut gpu, &query, &opts, &g), expect, "seed {seed} {semantics:?} {gpsm:?}");
                checked += 1;
            }
            let g = GpuOptions { strategy: Strategy::Gpsm, ..GpuOptions::default() };
            let (got, n, complete) = gpu_rows(&mut gpu, &query, &opts, &g);
            assert!(complete && n == expect && got == rows, "rows, seed {seed} {semantics:?}");
            let limit = 1 + expect as u64 / 2;
            let lopts = MatchOptions { limit: Some(limit), ..opts };
            let r = gpu.run_query(query.clone(), &lopts, &g, &Control::unlimited(), None).unwrap();
            assert_eq!(r.report.embeddings, expect.min(limit as u128), "seed {seed}");
            assert_eq!(r.report.complete, (limit as u128) > expect, "seed {seed}");
            assert_eq!(r.report.filter, "gpsm");
        }
    }
    assert!(checked > 1500, "{checked}");
    eprintln!("{checked} GpSM runs equal the CPU in {:.1}s", t.elapsed().as_secs_f64());
    for (directed, edge_labels) in [(false, 1), (true, 2)] {
        let data = skewed(directed, edge_labels);
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        let l = |e: u32| e % edge_labels;
        let triangle = graph(directed, vec![0, 0, 1], vec![(0, 1, 0), (1, 2, l(1)), (2, 0, 0)]);
        let path = graph(directed, vec![1, 0, 1], vec![(0, 1, 0), (1, 2, l(1))]);
        for semantics in SEMANTICS {
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            let (rows, expect) = cpu_rows(&data, &triangle, &opts);
            let path_count = cpu_count(&data, &path, &opts);
            for budget in [None, Some(1 << 16)] {
                let g = GpuOptions { strategy: Strategy::Gpsm, memory_budget: budget, ..GpuOptions::default() };
                let buf = Buf::default();
                let out = Output::new(Box::new(buf.clone()), OutputFormat::Text);
                let r = gpu.run_query(triangle.clone(), &opts, &g, &Control::unlimited(), Some((&out, "q"))).unwrap();
                out.finish().unwrap();
                assert!(r.report.complete && r.report.embeddings == expect, "{semantics:?} {budget:?}");
                assert_eq!(rows_of(&buf), rows, "{semantics:?} {budget:?}");
                let r = gpu.run_query(path.clone(), &opts, &g, &Control::unlimited(), None).unwrap();
                assert!(r.report.complete && r.report.embeddings == path_count, "path {semantics:?} {budget:?}");
                if budget.is_some() {
                    assert!(r.report.tasks > 1, "{semantics:?}: the path's steps were not split");
                }
            }
        }
    }
}

/// A random tree of 1–6 vertices over `data` (labels 0–2), from `seed`.
fn random_tree(seed: u64, data: &Graph) -> TreeQuery {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    testtree::random_tree(&mut |n| rng.below(n), data, &[0, 1, 2])
}

/// GGQ's thread-ID enumeration ([`subgraph_gpu::ggq::ids`]) on the device, in one phase and
/// in many (phases of at most 8 IDs, or one edge each), in launches of up to 2^22 threads or of
/// 64 and 32: the rows are the tree's matches, each once, as many as the CPU's tree passes
/// count; counted alone, the same number; projected and made distinct, the full rows'
/// projection; under a LIMIT, that many distinct matches (or distinct rows). Rows of three
/// columns on a graph of 2^21 + 2 vertices do not pack into 63 bits and are made distinct on
/// the host, with the same answer.
#[test]
fn tree_ids_equal_the_tree_passes() {
    let mut nonzero = 0;
    let mut cases: Vec<(Graph, TreeQuery)> = (0..80u64)
        .map(|seed| {
            let data = case(seed).0;
            let tree = random_tree(seed, &data);
            (data, tree)
        })
        .collect();
    // A path whose middle vertex (label 1) is a hub of 300 leaves, among 2^21 + 2 vertices.
    let n = (1 << 21) + 2;
    let mut labels = vec![0; n];
    labels[0] = 1;
    let big = graph(false, labels, (1..=300).map(|v| (0, v, 0)).collect());
    let path =
        TreeQuery::new(vec![None, Some(1), None], &[(0, 1, None), (1, 2, None)], vec![None; 3], 1, false).unwrap();
    cases.push((big, path));
    for (i, (data, tree)) in cases.iter().enumerate() {
        let Some(mut gpu) = engine(data, &GpuOptions::default()) else {
            return;
        };
        let want = tree.count(data, &Control::unlimited()).unwrap().total.unwrap();
        let q = tree.len() as u32;
        let run = |gpu: &mut GpuEngine, plan: &IdPlan, ask: &Ask| {
            let mut rows = Vec::new();
            let got = gpu
                .enumerate_tree(tree, plan, ask, &Control::unlimited(), &mut |r: &[u32], _| rows.extend_from_slice(r))
                .unwrap();
            let width = ask.columns.len().max(1);
            let mut rows: Vec<Vec<u32>> = rows.chunks(width).map(<[u32]>::to_vec).collect();
            rows.sort_unstable();
            (got, rows)
        };
        for (space, chunk) in [(PHASE_SPACE, CHUNK), (8, 64), (1, 32)] {
            let plan = IdPlan { chunk, ..IdPlan::with_space(data, tree, space).unwrap() };
            let all = Ask { columns: (0..q).collect(), distinct: false, write: true, limit: None };
            let (got, rows) = run(&mut gpu, &plan, &all);
            assert_eq!((got.matches as u128, got.rows as u128, got.stopped), (want, want, None), "case {i}");
            assert_eq!(rows.len() as u128, want, "case {i}");
            assert!(rows.windows(2).all(|w| w[0] != w[1]), "case {i}: a match twice");
            assert!(rows.iter().all(|r| tree.matches(data, r)), "case {i}");
            let count = Ask { columns: Vec::new(), write: false, ..all.clone() };
            assert_eq!(run(&mut gpu, &plan, &count).0.matches as u128, want, "case {i}");
            // Projected onto the last and first vertices, distinct.
            let columns = vec![q - 1, 0];
            let mut projected: Vec<Vec<u32>> =
                rows.iter().map(|r| columns.iter().map(|&c| r[c as usize]).collect()).collect();
            projected.sort_unstable();
            projected.dedup();
            let distinct = Ask { columns: columns.clone(), distinct: true, ..all.clone() };
            let (got, drows) = run(&mut gpu, &plan, &distinct);
            assert_eq!(drows, projected, "case {i}");
            assert_eq!((got.matches as u128, got.rows), (want, projected.len() as u64), "case {i}");
            let limit = want as u64 / 2 + 1;
            let (got, lrows) = run(&mut gpu, &plan, &Ask { limit: Some(limit), ..all.clone() });
            assert_eq!(lrows.len() as u64, limit.min(want as u64), "case {i}");
            assert!(lrows.windows(2).all(|w| w[0] != w[1]) && lrows.iter().all(|r| tree.matches(data, r)));
            assert_eq!(got.stopped, (want as u64 >= limit).then_some(Stopped::Limit), "case {i}");
            let (_, dl) = run(&mut gpu, &plan, &Ask { limit: Some(1), ..distinct.clone() });
            assert_eq!(dl.len(), projected.len().min(1), "case {i}");
            assert!(dl.iter().all(|r| projected.binary_search(r).is_ok()), "case {i}");
            let three = Ask { columns: vec![0, 1, 2], distinct: true, ..all.clone() };
            if data.num_vertices() == n {
                let (got, trows) = run(&mut gpu, &plan, &three);
                assert!(!got.device_distinct);
                assert_eq!(trows, rows, "the host's distinct rows");
            }
        }
        nonzero += (want > 0) as u32;
    }
    assert!(nonzero > 15, "only {nonzero} trees had matches");
}

/// GGQ's tree passes on the device give the CPU's counts and root answers: random trees with
/// wildcard labels and restrictions on random graphs (directed and not), and a star on hubs
/// whose count saturates the device's 64 bits (counted again on the CPU).
#[test]
fn tree_counts_equal_the_cpu() {
    let mut nonzero = 0;
    for seed in 0..200u64 {
        let (data, _) = case(seed);
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        let tree = random_tree(seed, &data);
        let want = tree.count(&data, &Control::unlimited()).unwrap();
        let got = gpu.count_tree(&tree, &Control::unlimited()).unwrap().unwrap();
        assert_eq!(got.count, want, "seed {seed}");
        assert!(!got.recounted);
        nonzero += (want.total != Some(0)) as u32;
    }
    assert!(nonzero > 50, "only {nonzero} trees had matches");
    // 5,000 leaves on a hub, and a star of 6 leaves: 5000^6 > 2^64 on the device.
    let data = graph(false, vec![0; 5001], (1..=5000).map(|v| (0, v, 0)).collect());
    let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
        return;
    };
    let edges: Vec<(u32, u32, Option<u32>)> = (1..=6).map(|c| (0, c, None)).collect();
    let tree = TreeQuery::new(vec![None; 7], &edges, vec![None; 7], 0, false).unwrap();
    let got = gpu.count_tree(&tree, &Control::unlimited()).unwrap().unwrap();
    assert!(got.recounted);
    assert_eq!(got.count.total, Some(5000u128.pow(6) + 5000));
    assert_eq!(got.count.roots.len(), 5001);
}

/// `--gpu-memory`: with the engine capped at the data graph plus 1/2, 1/4 and 1/8 of what the
/// uncapped queries held beyond it, each of the skewed graphs' queries (breadth first, chunked,
/// and depth first) either gives the CPU's count and rows with its peak within the cap or is
/// refused with `OverBudget` (what it cannot split, its levels, does not fit; the runner then
/// counts on the CPU), and some run; a cap below the data graph is refused when the engine opens.
#[test]
fn device_memory_caps_keep_queries_exact() {
    for (directed, edge_labels) in [(false, 1), (true, 2)] {
        let data = skewed(directed, edge_labels);
        let Some(mut free) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        let l = |e: u32| e % edge_labels;
        let triangle = graph(directed, vec![0, 0, 1], vec![(0, 1, 0), (1, 2, l(1)), (2, 0, 0)]);
        let path = graph(directed, vec![1, 0, 1], vec![(0, 1, 0), (1, 2, l(1))]);
        let opts = MatchOptions::default();
        // In core: the partitioned layout has its own test.
        let in_core = GpuOptions { partitions: Partitions::Off, ..GpuOptions::default() };
        let variants = [in_core, GpuOptions { depth_first: DepthFirst::Off, ..in_core }];
        let held = free.device_bytes();
        let mut peak = held;
        for g in &variants {
            for q in [&triangle, &path] {
                peak = peak
                    .max(free.run_query(q.clone(), &opts, g, &Control::unlimited(), None).unwrap().peak_device_bytes);
            }
        }
        let (rows, expect) = cpu_rows(&data, &triangle, &opts);
        let path_count = cpu_count(&data, &path, &opts);
        drop(free);
        let (mut ran, mut refused) = (0, 0);
        for k in [2, 4, 8] {
            let cap = held + (peak - held) / k;
            for g in &variants {
                let g = GpuOptions { device_memory: Some(cap), ..*g };
                let mut capped = engine(&data, &g).unwrap();
                for (q, want, written) in [(&triangle, expect, true), (&path, path_count, false)] {
                    let buf = Buf::default();
                    let out = Output::new(Box::new(buf.clone()), OutputFormat::Text);
                    let sink = written.then_some((&out, "q"));
                    match capped.run_query(q.clone(), &opts, &g, &Control::unlimited(), sink) {
                        Ok(r) => {
                            out.finish().unwrap();
                            assert!(r.report.complete && r.report.embeddings == want, "1/{k}, {g:?}");
                            assert!(!written || rows_of(&buf) == rows, "rows under 1/{k}, {g:?}");
                            assert!(r.peak_device_bytes <= cap, "peak {} over the cap {cap}", r.peak_device_bytes);
                            ran += 1;
                        }
                        Err(GpuError::Cuda(CudaError::OverBudget { budget, .. })) => {
                            assert_eq!(budget, cap);
                            refused += 1;
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        }
        // On these graphs the data graph is most of the memory and the queries' levels cannot
        // be split: at the tighter caps most are refused (4 of 12 ran on an H200).
        assert!(ran > 0, "no query ran under the caps ({refused} refused)");
        let tight = GpuOptions { device_memory: Some(held / 2), ..in_core };
        match GpuEngine::new(Arc::new(data.clone()), &tight) {
            Err(GpuError::Cuda(CudaError::OverBudget { budget, .. })) => assert_eq!(budget, held / 2),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a data graph of {held} bytes opened under a cap of {}", held / 2),
        }
    }
}

/// SGSI's partitions (`--gpu-partitions on`, [`subgraph_gpu::partition`]): random graphs cut
/// into segments of 140 bytes (a key and up to 3 edges: longer lists span segments) or 600,
/// with every segment resident, none
/// (each copied when a query reads it) or some, under the device filters and the host's, with
/// and without depth-first counting: counts, written rows and limits equal the CPU's, and
/// induced matching is refused (`Partitioned`: the runner sends it to the CPU). Then the skewed
/// graphs, whose hub lists span several segments of 16 KiB, under a cap at their in-core bytes
/// (which `auto` partitions): each query gives the CPU's answer with its peak within the cap,
/// or is refused with `OverBudget`, and some run. Two engines (on two devices where there are)
/// each holding the graph partitioned count what the CPU does.
#[test]
fn partitioned_graphs_equal_the_cpu() {
    let mut streamed = 0;
    for seed in 0..48u64 {
        let (data, query) = case(seed);
        let resident_bytes = [None, Some(0), Some(2000)][seed as usize % 3];
        let open = GpuOptions {
            partitions: Partitions::On,
            segment_bytes: Some(if seed % 2 == 0 { 140 } else { 600 }),
            resident_bytes,
            pipeline: seed / 2 % 2 == 0,
            ..GpuOptions::default()
        };
        let Some(mut gpu) = engine(&data, &open) else {
            return;
        };
        assert!(gpu.partitioned().is_some_and(|p| p.segments().len() > 1 || data.num_edges() < 40));
        for semantics in SEMANTICS {
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            if subgraph_core::Query::new(query.clone(), &data, semantics).is_err() {
                continue;
            }
            if semantics == Semantics::Induced {
                let r = gpu.run_query(query.clone(), &opts, &open, &Control::unlimited(), None);
                assert!(matches!(r, Err(GpuError::Partitioned { .. })), "induced, seed {seed}");
                continue;
            }
            let (rows, expect) = cpu_rows(&data, &query, &opts);
            let filter =
                [CandidateFilter::Signature, CandidateFilter::Refined, CandidateFilter::Host][seed as usize / 3 % 3];
            let depth_first = [DepthFirst::Auto, DepthFirst::On, DepthFirst::Off][seed as usize / 9 % 3];
            let g = GpuOptions { filter, depth_first, ..open };
            let what = format!("seed {seed} {semantics:?} {g:?}");
            let r = equals_the_cpu(&mut gpu, &query, &opts, &g, (&rows, expect), 1 + expect as u64 / 2, &what);
            assert!(r.partitioned && r.structure == "aux", "{what}");
            streamed += r.streamed.segments;
        }
    }
    assert!(streamed > 0, "no segment was copied for a query");
    // Two devices (or two engines on one), each with the graph partitioned, sharing every
    // query's first-level rows.
    let ordinals: Vec<usize> = match Gpu::count() {
        Ok(n) if n >= 2 => vec![0, 1],
        _ => vec![0, 0],
    };
    for seed in 0..12u64 {
        let (data, query) = case(seed);
        let g = GpuOptions {
            partitions: Partitions::On,
            segment_bytes: Some(140),
            shared_from: 0,
            ..GpuOptions::default()
        };
        let mut set = subgraph_gpu::GpuSet::open(Arc::new(data.clone()), &g, &ordinals).unwrap();
        let opts = MatchOptions::default();
        if subgraph_core::Query::new(query.clone(), &data, opts.semantics).is_err() {
            continue;
        }
        let r = set.run_query(query.clone(), &opts, &g, &Control::unlimited(), None).unwrap();
        assert_eq!(r.report.embeddings, cpu_count(&data, &query, &opts), "two partitioned engines, seed {seed}");
        assert!(r.partitioned);
    }
    for (directed, edge_labels) in [(false, 1), (true, 2)] {
        let data = skewed(directed, edge_labels);
        let cap = subgraph_gpu::partition::in_core_bytes(&data, false);
        let g = GpuOptions { device_memory: Some(cap), segment_bytes: Some(16 << 10), ..GpuOptions::default() };
        let Some(mut gpu) = engine(&data, &g) else {
            return;
        };
        let parts = gpu.partitioned().expect("auto partitions a graph at the cap");
        assert!(parts.resident_segments() > 0 && parts.resident_segments() < parts.segments().len());
        let l = |e: u32| e % edge_labels;
        let triangle = graph(directed, vec![0, 0, 1], vec![(0, 1, 0), (1, 2, l(1)), (2, 0, 0)]);
        let path = graph(directed, vec![1, 0, 1], vec![(0, 1, 0), (1, 2, l(1))]);
        let opts = MatchOptions::default();
        let mut ran = 0;
        for q in [&triangle, &path] {
            let (rows, expect) = cpu_rows(&data, q, &opts);
            for depth_first in [DepthFirst::Auto, DepthFirst::Off] {
                let g = GpuOptions { depth_first, ..g };
                match gpu.run_query(q.clone(), &opts, &g, &Control::unlimited(), None) {
                    Ok(r) => {
                        assert_eq!(r.report.embeddings, expect, "{q:?} {depth_first:?}");
                        assert!(r.peak_device_bytes <= cap, "peak {} over the cap {cap}", r.peak_device_bytes);
                        let (got, n, complete) = gpu_rows(&mut gpu, q, &opts, &g);
                        assert!(complete && n == expect && got == rows, "written rows of {q:?}");
                        ran += 1;
                    }
                    Err(GpuError::Cuda(CudaError::OverBudget { budget, .. })) => assert_eq!(budget, cap),
                    Err(e) => panic!("{e}"),
                }
            }
        }
        assert!(ran > 0, "no query ran on the partitioned skewed graph");
    }
}

/// A graph with hubs whose slices exceed W1 = 4096 (grid layer) and W2 = 1024 (block layer).
fn skewed(directed: bool, edge_labels: u32) -> Graph {
    let n = 20_000u32;
    let mut rng = Rng(0x1234_5678 + directed as u64);
    let labels: Vec<u32> = (0..n).map(|v| if v < 8 { 0 } else { rng.below(2) as u32 }).collect();
    let mut edges = Vec::new();
    for hub in 0..8u32 {
        let degree = match hub {
            0 | 1 => 16_000,
            2 | 3 => 6000,
            _ => 1500,
        };
        for i in 0..degree {
            // Hubs 0 and 1 take label-1 neighbours only, half through out-edges labelled
            // 1 % edge_labels and half through in-edges labelled 0: the path query's middle
            // vertex then has slices N(hub, dir, edge label, 1) of about 5,500 distinct vertices
            // (8,000 undirected), beyond W1.
            let v = loop {
                let v = 8 + rng.below((n - 8) as u64) as u32;
                if hub >= 2 || labels[v as usize] == 1 {
                    break v;
                }
            };
            edges.push(match hub {
                0 | 1 if i % 2 == 0 => (hub, v, 1 % edge_labels),
                0 | 1 => (v, hub, 0),
                _ if rng.below(2) == 0 => (hub, v, rng.below(edge_labels as u64) as u32),
                _ => (v, hub, rng.below(edge_labels as u64) as u32),
            });
        }
        for other in hub + 1..8 {
            edges.push((hub, other, 0));
        }
    }
    for _ in 0..40_000 {
        let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        edges.push((a, b, rng.below(edge_labels as u64) as u32));
    }
    graph(directed, labels, edges)
}

#[test]
fn skewed_graphs_use_every_layer_and_chunking() {
    // Block and grid tasks over both graphs: the undirected graph's hubs 2 and 3 have label-1
    // slices within (W2, W1], the directed graph's split theirs by direction and edge label.
    let (mut blocks, mut grids) = (0, 0);
    for (directed, edge_labels) in [(false, 1), (true, 2)] {
        let data = skewed(directed, edge_labels);
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        let l = |e: u32| e % edge_labels;
        let triangle = graph(directed, vec![0, 0, 1], vec![(0, 1, 0), (1, 2, l(1)), (2, 0, 0)]);
        let path = graph(directed, vec![1, 0, 1], vec![(0, 1, 0), (1, 2, l(1))]);
        let star = graph(directed, vec![0, 1, 1, 0], vec![(0, 1, 0), (0, 2, l(1)), (0, 3, 0)]);
        for semantics in SEMANTICS {
            let t = Instant::now();
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            let (rows, expect) = cpu_rows(&data, &triangle, &opts);
            assert!(expect > 0);
            // The CPU enumerates induced matches one by one: the star (~10^10) is left out there.
            let star_too = semantics != Semantics::Induced;
            let reference = if star_too { &[&path, &star][..] } else { &[&path][..] };
            let counts: Vec<u128> = reference.iter().map(|q| cpu_count(&data, q, &opts)).collect();
            for g in combos() {
                for budget in [None, Some(1 << 20)] {
                    let g = GpuOptions { memory_budget: budget, ..g };
                    let (got, n, _) = gpu_rows(&mut gpu, &triangle, &opts, &g);
                    assert_eq!(n, expect, "triangle {semantics:?} {g:?}");
                    assert!(got == rows, "triangle rows {semantics:?} {g:?}");
                    // The star's 10^7-row middle table is checked unchunked only.
                    let queries = if star_too && budget.is_none() { &[&path, &star][..] } else { &[&path][..] };
                    for (q, &want) in queries.iter().zip(&counts) {
                        assert_eq!(gpu_count(&mut gpu, q, &opts, &g), want, "{semantics:?} {g:?}");
                    }
                }
            }
            // SGSI's histogram model, with and without chunking, on the hubs: the same rows and
            // counts.
            for budget in [None, Some(1 << 20)] {
                let g =
                    GpuOptions { load_balance: LoadBalance::Histogram, memory_budget: budget, ..GpuOptions::default() };
                let (got, n, _) = gpu_rows(&mut gpu, &triangle, &opts, &g);
                assert!(n == expect && got == rows, "triangle under the histogram model, {budget:?}");
                for (q, &want) in reference.iter().zip(&counts) {
                    assert_eq!(gpu_count(&mut gpu, q, &opts, &g), want, "histogram model, {budget:?}");
                }
            }
            // The layers really run: the hub rows of these queries reach the block and the grid
            // layers with GSI's thresholds (counted over both graphs) and neither without;
            // two-step buffers are exact, Prealloc-Combine's are upper bounds.
            let mut run =
                |q: &Graph, g: &GpuOptions| gpu.run_query(q.clone(), &opts, g, &Control::unlimited(), None).unwrap();
            let heavy = if star_too { &[&triangle, &path, &star][..] } else { &[&triangle, &path][..] };
            let mut layers = |g: &GpuOptions| {
                heavy.iter().map(|q| run(q, g)).fold((0, 0), |(b, t), r| (b + r.block_tasks, t + r.grid_tasks))
            };
            let (block, grid) = layers(&GpuOptions { load_balance: LoadBalance::Gsi, ..GpuOptions::default() });
            blocks += block;
            grids += grid;
            assert_eq!(layers(&GpuOptions { load_balance: LoadBalance::Off, ..GpuOptions::default() }), (0, 0));
            // The cost model's thresholds are never below GSI's: it sends a subset of the rows
            // GSI sends to each layer, in the same chunks.
            let (mb, mg) = layers(&GpuOptions::default());
            assert!(mb <= block && mg <= grid, "model {mb} + {mg}, GSI {block} + {grid}");
            let pc = run(&triangle, &GpuOptions::default());
            let ts = run(&triangle, &GpuOptions { output: OutputScheme::TwoStep, ..GpuOptions::default() });
            assert!(pc.buffer_elements >= pc.joined_rows && pc.joined_rows > 0);
            assert_eq!((ts.buffer_elements, ts.joined_rows), (pc.joined_rows, pc.joined_rows));
            // Chunking really splits the breadth-first levels: more chunks under the small budget.
            let bfs = GpuOptions { depth_first: DepthFirst::Off, ..GpuOptions::default() };
            let small = GpuOptions { memory_budget: Some(1 << 16), ..bfs };
            let a = gpu.run_query(path.clone(), &opts, &bfs, &Control::unlimited(), None).unwrap();
            let b = gpu.run_query(path.clone(), &opts, &small, &Control::unlimited(), None).unwrap();
            assert!(b.report.tasks > a.report.tasks, "{} vs {}", b.report.tasks, a.report.tasks);
            assert_eq!(a.report.embeddings, b.report.embeddings);
            eprintln!(
                "skewed directed={directed} {semantics:?}: path {} embeddings, join {:.2} ms, {} chunks (budget: {} chunks, {:.2} ms), peak {} MiB; {:.1} s for this semantics",
                a.report.embeddings,
                a.join_ms,
                a.report.tasks,
                b.report.tasks,
                b.join_ms,
                a.peak_device_bytes >> 20,
                t.elapsed().as_secs_f64()
            );
        }
    }
    assert!(blocks > 0 && grids > 0, "block tasks {blocks}, grid tasks {grids}");
}

#[test]
fn limits_outputs_and_deadlines() {
    let data = skewed(false, 1);
    let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
        return;
    };
    // Hub-hub-leaf triangles: tens of thousands, through every load-balance layer.
    let triangle = graph(false, vec![0, 0, 1], vec![(0, 1, 0), (1, 2, 0), (2, 0, 0)]);
    let opts = MatchOptions::default();
    let (all, total) = cpu_rows(&data, &triangle, &opts);
    assert!(total > 5000, "{total}");
    for g in combos() {
        for limit in [0u64, 1, 31, 32, 33, 5000, total as u64, total as u64 + 1] {
            let lopts = MatchOptions { limit: Some(limit), ..opts };
            let control = Control::unlimited();
            let r = gpu.run_query(triangle.clone(), &lopts, &g, &control, None).unwrap();
            assert_eq!(r.report.embeddings, total.min(limit as u128), "{limit} {g:?}");
            assert_eq!(r.report.complete, limit as u128 > total);
            if !r.report.complete {
                assert_eq!(r.report.stopped, Some(Stopped::Limit));
            }
            // Written rows: exactly the limit, each a real embedding.
            let buf = Buf::default();
            let out = Output::new(Box::new(buf.clone()), OutputFormat::Text);
            let r = gpu.run_query(triangle.clone(), &lopts, &g, &Control::unlimited(), Some((&out, "q"))).unwrap();
            out.finish().unwrap();
            let rows = rows_of(&buf);
            assert_eq!(rows.len() as u128, r.report.embeddings);
            assert_eq!(rows.len() as u128, total.min(limit as u128));
            assert!(rows.iter().all(|row| all.binary_search(row).is_ok()));
            rows.windows(2).for_each(|w| assert!(w[0] != w[1]));
        }
    }
    // Tables downloaded two rows a piece, through both page-locked buffers in turn, each piece
    // written while the next is copied: the same rows, each match once (the two hubs of a
    // triangle are symmetric, so each row is written as two embeddings).
    let pieces = GpuOptions { download_elements: 7, ..GpuOptions::default() };
    for limit in [1u64, 33, 5001, total as u64 + 1] {
        let lopts = MatchOptions { limit: Some(limit), ..opts };
        let buf = Buf::default();
        let out = Output::new(Box::new(buf.clone()), OutputFormat::Text);
        let r = gpu.run_query(triangle.clone(), &lopts, &pieces, &Control::unlimited(), Some((&out, "q"))).unwrap();
        out.finish().unwrap();
        let mut rows = rows_of(&buf);
        assert_eq!(rows.len() as u128, total.min(limit as u128), "{limit}");
        assert_eq!(r.report.embeddings, rows.len() as u128);
        rows.dedup();
        assert_eq!(rows.len() as u128, total.min(limit as u128), "{limit}: a row written twice");
        assert!(rows.iter().all(|row| all.binary_search(row).is_ok()));
    }
    // The same pieces from a pool of one thread (where the join, waiting for a buffer, runs
    // the writer's formatting itself), as binary rows (gathered without a call per
    // embedding): the same rows, each once, exactly the limit.
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for limit in [33u64, total as u64 + 1] {
        let lopts = MatchOptions { limit: Some(limit), ..opts };
        let buf = Buf::default();
        let out = Output::new(Box::new(buf.clone()), OutputFormat::Binary);
        let r = one
            .install(|| gpu.run_query(triangle.clone(), &lopts, &pieces, &Control::unlimited(), Some((&out, "q"))))
            .unwrap();
        out.finish().unwrap();
        let mut rows: Vec<Vec<u32>> = read_binary(&buf.0.lock().unwrap())
            .unwrap()
            .into_iter()
            .flat_map(|section| match section {
                BinarySection::Rows(rows) => rows,
                _ => Vec::new(),
            })
            .map(|row| row.into_iter().map(|v| v as u32).collect())
            .collect();
        rows.sort();
        assert_eq!(rows.len() as u128, total.min(limit as u128), "{limit}");
        assert_eq!(r.report.embeddings, rows.len() as u128);
        rows.dedup();
        assert_eq!(rows.len() as u128, total.min(limit as u128), "{limit}: a row written twice");
        assert!(rows.iter().all(|row| all.binary_search(row).is_ok()));
    }
    // A deadline already past stops the query: incomplete, timed out.
    let control = Control::new(Some(Instant::now()), Arc::new(std::sync::atomic::AtomicBool::new(false)));
    let r = gpu.run_query(triangle.clone(), &opts, &GpuOptions::default(), &control, None).unwrap();
    assert!(!r.report.complete);
    assert_eq!(r.report.stopped, Some(Stopped::Timeout));
    assert!(r.report.embeddings < total);
}

#[test]
fn limit_chunks_count_large_tables_exactly() {
    // Under a limit, chunks start small and double in rows and first-link elements, and their
    // offsets are read from host windows or probed on the device once a table passes 2^16
    // rows. A limit at or just above the count makes the engine run the whole query that way,
    // and the count must be the CPU's: the star (3.8·10^10 embeddings) makes third-level
    // tables of 130,000 to 7.5 million rows (seen on the H200 with a probe in `extend`), so
    // both the window and the device probes plan its chunks.
    let data = skewed(false, 1);
    let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
        return;
    };
    let star = graph(false, vec![0, 1, 1, 0], vec![(0, 1, 0), (0, 2, 0), (0, 3, 0)]);
    let path = graph(false, vec![1, 0, 1], vec![(0, 1, 0), (1, 2, 0)]);
    let opts = MatchOptions::default();
    let variants = [
        GpuOptions::default(),
        GpuOptions { output: OutputScheme::TwoStep, ..GpuOptions::default() },
        GpuOptions { load_balance: LoadBalance::Gsi, ..GpuOptions::default() },
        GpuOptions { load_balance: LoadBalance::Off, structure: Structure::Csr, ..GpuOptions::default() },
        GpuOptions { structure: Structure::Aux, ..GpuOptions::default() },
    ];
    for q in [&path, &star] {
        let total = cpu_count(&data, q, &opts);
        for g in &variants {
            for (limit, complete) in [(total + 1, true), (total, false)] {
                let lopts = MatchOptions { limit: Some(limit as u64), ..opts };
                let r = gpu.run_query(q.clone(), &lopts, g, &Control::unlimited(), None).unwrap();
                assert_eq!((r.report.embeddings, r.report.complete), (total, complete), "{g:?} limit {limit}");
                assert!(r.report.tasks > 1, "the limit splits the levels into chunks");
                eprintln!(
                    "limit {limit}: {} chunks, {} rows joined, {:.1} ms ({g:?})",
                    r.report.tasks, r.joined_rows, r.join_ms
                );
            }
        }
    }
}

#[test]
fn depth_first_counts_hub_queries_with_tails_limits_and_deadlines() {
    // The depth-first kernel on hub rows, handed the deepest and the first frontier level,
    // with and without counted tails and symmetry breaking, equals the CPU; a limit stops it
    // exactly; a deadline stops a 10^10-embedding count promptly.
    let data = skewed(false, 1);
    let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
        return;
    };
    let star = graph(false, vec![0, 1, 1, 0], vec![(0, 1, 0), (0, 2, 0), (0, 3, 0)]);
    let path = graph(false, vec![1, 0, 1], vec![(0, 1, 0), (1, 2, 0)]);
    let triangle = graph(false, vec![0, 0, 1], vec![(0, 1, 0), (1, 2, 0), (2, 0, 0)]);
    // Two leaves of one label on a hub pair: a counted group of two (inclusion–exclusion).
    let twin = graph(false, vec![0, 0, 1, 1], vec![(0, 1, 0), (0, 2, 0), (1, 3, 0), (0, 3, 0)]);
    let star_total = cpu_count(&data, &star, &MatchOptions::default());
    // (query, whether it has two non-adjacent vertices to count together), over PCSR and over
    // FSIG's A.
    for (q, has_tail, structure) in [(&path, true), (&star, true), (&triangle, false), (&twin, true)]
        .into_iter()
        .flat_map(|(q, t)| [Structure::Pcsr, Structure::Aux].map(|s| (q, t, s)))
    {
        let on = GpuOptions { depth_first: DepthFirst::On, structure, ..GpuOptions::default() };
        for tail in [Tail::On, Tail::Off] {
            for symmetry in [Symmetry::Auto, Symmetry::Off] {
                let opts = MatchOptions { tail, symmetry, ..MatchOptions::default() };
                let want = cpu_count(&data, q, &opts);
                let r = gpu.run_query(q.clone(), &opts, &on, &Control::unlimited(), None).unwrap();
                assert_eq!(r.report.embeddings, want, "{q:?} {tail:?} {symmetry:?}");
                assert!(r.dfs.rows > 0 && r.dfs.launches > 0);
                assert!(r.dfs.columns >= 1 && r.dfs.ms > 0.0);
                if tail == Tail::On && symmetry == Symmetry::Auto {
                    // The handover at the first level: the kernel enumerates every level
                    // between (counted tails keep the hubs' subtrees small enough for a test).
                    let shallow = GpuOptions { dfs_frontier_rows: 1, ..on };
                    let s = gpu.run_query(q.clone(), &opts, &shallow, &Control::unlimited(), None).unwrap();
                    assert_eq!(s.report.embeddings, want, "{q:?} {tail:?} shallow");
                    assert!(s.dfs.columns >= 1 && s.dfs.columns <= r.dfs.columns);
                }
                assert_eq!(r.report.tail >= 2, tail == Tail::On && has_tail, "{q:?} {tail:?}");
                // Limits: exactly the limit, below and at the count.
                for limit in [1u64, want as u64 / 3 + 1] {
                    let lopts = MatchOptions { limit: Some(limit), ..opts };
                    let r = gpu.run_query(q.clone(), &lopts, &on, &Control::unlimited(), None).unwrap();
                    assert_eq!(r.report.embeddings, want.min(limit as u128));
                    assert_eq!(r.report.stopped, Some(Stopped::Limit));
                }
            }
        }
    }
    // A deadline stops the star's count (about 3.8·10^10 embeddings, enumerated without a
    // tail) within a fraction of a second.
    let opts = MatchOptions { tail: Tail::Off, symmetry: Symmetry::Off, ..MatchOptions::default() };
    let on = GpuOptions { depth_first: DepthFirst::On, ..GpuOptions::default() };
    let t = Instant::now();
    let control = Control::new(Some(t + std::time::Duration::from_millis(200)), Default::default());
    let r = gpu.run_query(star.clone(), &opts, &on, &control, None).unwrap();
    let took = t.elapsed().as_secs_f64();
    eprintln!("deadline 0.2 s: stopped after {took:.3} s with {} embeddings", r.report.embeddings);
    if r.report.complete {
        assert_eq!(r.report.embeddings, star_total);
    } else {
        assert_eq!(r.report.stopped, Some(Stopped::Timeout));
        assert!(took < 1.0, "{took}");
    }
}

#[test]
fn stolen_partial_matches_keep_depth_first_counts_exact() {
    // The depth-first kernel handed the first level of hub queries (a few heavy rows) and
    // enumerating every level after it: with stealing, idle warps take over the hubs' partial
    // matches, and the counts equal the CPU's and the kernel's without stealing; the warps'
    // busy fraction is a fraction.
    let data = skewed(false, 1);
    let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
        return;
    };
    let path = graph(false, vec![1, 0, 1], vec![(0, 1, 0), (1, 2, 0)]);
    let triangle = graph(false, vec![0, 0, 1], vec![(0, 1, 0), (1, 2, 0), (2, 0, 0)]);
    let twin = graph(false, vec![0, 0, 1, 1], vec![(0, 1, 0), (0, 2, 0), (1, 3, 0), (0, 3, 0)]);
    let mut stolen = 0;
    for (name, q) in [("path", &path), ("triangle", &triangle), ("twin", &twin)] {
        for structure in [Structure::Pcsr, Structure::Aux] {
            let opts = MatchOptions { tail: Tail::Off, ..MatchOptions::default() };
            let want = cpu_count(&data, q, &opts);
            for dfs_steal in [true, false] {
                let g = GpuOptions {
                    depth_first: DepthFirst::On,
                    dfs_frontier_rows: 1,
                    dfs_steal,
                    structure,
                    ..GpuOptions::default()
                };
                let r = gpu.run_query(q.clone(), &opts, &g, &Control::unlimited(), None).unwrap();
                assert_eq!(r.report.embeddings, want, "{name} {structure:?} steal {dfs_steal}");
                assert_eq!(r.dfs.columns, 1, "{name}");
                let busy = r.dfs.busy().expect("a launch");
                assert!(busy > 0.0 && busy <= 1.0, "{busy}");
                if dfs_steal {
                    stolen += r.dfs.stolen;
                } else {
                    assert_eq!(r.dfs.stolen, 0);
                }
                eprintln!("{name} {structure:?} steal {dfs_steal}: {} stolen, busy {busy:.3}", r.dfs.stolen);
                let limit = want as u64 / 2 + 1;
                let lopts = MatchOptions { limit: Some(limit), ..opts };
                let l = gpu.run_query(q.clone(), &lopts, &g, &Control::unlimited(), None).unwrap();
                assert_eq!(l.report.embeddings, want.min(limit as u128), "limit {name} steal {dfs_steal}");
            }
        }
    }
    assert!(stolen > 0, "no partial match was stolen");
}

/// FSIG's refinement by hand: from the signature filter's candidates, Jacobi rounds of edge
/// consistency (at most `refine::ROUNDS`, stopping when nothing changes or a set empties), and
/// every set cleared when one is empty or a query edge's labels occur nowhere in the data.
/// Returns the candidates' totals before and after the rounds.
fn host_refined_totals(data: &Graph, query: &Graph, semantics: Semantics) -> (u64, u64) {
    let table = SignatureTable::build(data).unwrap();
    let q = Query::new(query.clone(), data, semantics).unwrap();
    let mut cands: Vec<Vec<u32>> = (0..q.num_vertices() as u32)
        .map(|u| {
            let sig = Signature::of_vertex(query, u);
            let sig = if semantics.injective() { sig } else { sig.at_most_one() };
            filter_host(&table, &sig, None).vertices
        })
        .collect();
    let total = |c: &[Vec<u32>]| c.iter().map(|c| c.len() as u64).sum::<u64>();
    let before = total(&cands);
    let pairs_exist =
        (0..q.num_vertices() as u32).all(|u| q.edges(u).iter().all(|e| data.pair_id(e.label, q.label(e.to)).is_some()));
    if !pairs_exist {
        return (before, 0);
    }
    if cands.iter().all(|c| !c.is_empty()) {
        for _ in 0..refine::ROUNDS {
            let prev = cands.clone();
            for (u, c) in cands.iter_mut().enumerate() {
                c.retain(|&v| {
                    q.edges(u as u32).iter().all(|e| {
                        data.neighbors_labelled(v, e.dir, e.label, q.label(e.to))
                            .iter()
                            .any(|w| prev[e.to as usize].binary_search(w).is_ok())
                    })
                });
            }
            if cands == prev || cands.iter().any(Vec::is_empty) {
                break;
            }
        }
    }
    if cands.iter().any(Vec::is_empty) {
        return (before, 0);
    }
    (before, total(&cands))
}

/// A query cut from `data`: the vertices a random walk of `k` steps visits and most data edges
/// among them (with their labels and directions).
fn piece(data: &Graph, rng: &mut Rng, k: usize) -> Graph {
    let n = data.num_vertices() as u64;
    let mut walk = vec![rng.below(n) as u32];
    for _ in 0..k {
        let v = walk[walk.len() - 1];
        let nbrs: Vec<u32> = data.edges().filter(|&(a, b, _)| a == v || b == v).map(|(a, b, _)| a + b - v).collect();
        if nbrs.is_empty() {
            break;
        }
        let w = nbrs[rng.below(nbrs.len() as u64) as usize];
        if !walk.contains(&w) {
            walk.push(w);
        }
    }
    let labels = walk.iter().map(|&v| data.label(v)).collect();
    let edges = data
        .edges()
        .filter_map(|(a, b, l)| {
            let pa = walk.iter().position(|&x| x == a)?;
            let pb = walk.iter().position(|&x| x == b)?;
            (rng.below(100) < 80).then_some((pa as u32, pb as u32, l))
        })
        .collect();
    graph(data.is_directed(), labels, edges)
}

#[test]
fn device_refinement_equals_host_edge_consistency() {
    let mut refined = 0;
    let mut cases = 0;
    for seed in 0..12u64 {
        let mut rng = Rng(0xABCD_EF01 + seed);
        let directed = seed % 2 == 1;
        let n = 3000u32;
        let labels: Vec<u32> = (0..n).map(|_| rng.below(3) as u32).collect();
        let edges: Vec<(u32, u32, u32)> =
            (0..9000).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32, rng.below(3) as u32)).collect();
        let data = graph(directed, labels, edges);
        let query = piece(&data, &mut rng, 2 + seed as usize % 5);
        let Some(mut gpu) = engine(&data, &GpuOptions::default()) else {
            return;
        };
        for semantics in SEMANTICS {
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            let (before, expect) = host_refined_totals(&data, &query, semantics);
            cases += 1;
            refined += usize::from(expect < before);
            for structure in [Structure::Pcsr, Structure::Csr, Structure::Aux] {
                let g = GpuOptions { filter: CandidateFilter::Refined, structure, ..GpuOptions::default() };
                let r = gpu.run_query(query.clone(), &opts, &g, &Control::unlimited(), None).unwrap();
                assert_eq!(r.report.candidates, expect, "seed {seed} {semantics:?} {structure:?}");
                assert_eq!(r.report.embeddings, cpu_count(&data, &query, &opts), "seed {seed} {semantics:?}");
            }
        }
    }
    // The rounds must have removed candidates in most cases, or this test checks little.
    assert!(refined * 2 > cases, "refinement removed candidates in only {refined} of {cases} cases");
}

/// Two engines (on two devices where the host has them, else both on the first: the same code
/// path) joining every query together, from a shared deal of the first level's rows: counts,
/// written embeddings, limits and the depth-first kernel equal the CPU's.
#[test]
fn several_devices_equal_the_cpu() {
    let present = match Gpu::count() {
        Ok(n) if n > 0 => n,
        _ => {
            assert!(std::env::var("SUBGRAPH_REQUIRE_GPU").as_deref() != Ok("1"), "no GPU");
            eprintln!("skipped: no GPU");
            return;
        }
    };
    let ordinals: Vec<usize> = if present >= 2 { (0..present).collect() } else { vec![0, 0] };
    eprintln!("devices {ordinals:?}");
    // Every query on every device, however small.
    let shared = GpuOptions { shared_from: 0, ..GpuOptions::default() };
    let open = |data: &Graph| subgraph_gpu::GpuSet::open(Arc::new(data.clone()), &shared, &ordinals).unwrap();
    let combos = combos();
    for seed in 0..60u64 {
        let (data, query) = case(seed);
        let mut set = open(&data);
        for semantics in SEMANTICS {
            let opts = MatchOptions { semantics, ..MatchOptions::default() };
            if subgraph_core::Query::new(query.clone(), &data, semantics).is_err() {
                continue;
            }
            let (rows, expect) = cpu_rows(&data, &query, &opts);
            let g = GpuOptions { shared_from: 0, ..combos[seed as usize % combos.len()] };
            let r = set.run_query(query.clone(), &opts, &g, &Control::unlimited(), None).unwrap();
            assert_eq!(r.report.embeddings, expect, "seed {seed} {semantics:?} {g:?}");
            assert_eq!(r.devices, ordinals.len());
            let buf = Buf::default();
            let out = Output::new(Box::new(buf.clone()), OutputFormat::Text);
            let w = set.run_query(query.clone(), &opts, &g, &Control::unlimited(), Some((&out, "q"))).unwrap();
            out.finish().unwrap();
            assert_eq!((rows_of(&buf), w.report.embeddings), (rows, expect), "written, seed {seed} {semantics:?}");
            let limit = 1 + expect as u64 / 2;
            let lopts = MatchOptions { limit: Some(limit), ..opts };
            let l = set.run_query(query.clone(), &lopts, &g, &Control::unlimited(), None).unwrap();
            assert_eq!(l.report.embeddings, expect.min(limit as u128), "limit, seed {seed}");
        }
    }
    // Hub rows: triangles through every load-balance layer, limits written exactly, and the
    // depth-first kernel with counted tails.
    let data = skewed(false, 1);
    let mut set = open(&data);
    let triangle = graph(false, vec![0, 0, 1], vec![(0, 1, 0), (1, 2, 0), (2, 0, 0)]);
    let star = graph(false, vec![0, 1, 1, 0], vec![(0, 1, 0), (0, 2, 0), (0, 3, 0)]);
    let opts = MatchOptions::default();
    let (all, total) = cpu_rows(&data, &triangle, &opts);
    for limit in [1u64, 33, 5000, total as u64, total as u64 + 1] {
        let lopts = MatchOptions { limit: Some(limit), ..opts };
        let buf = Buf::default();
        let out = Output::new(Box::new(buf.clone()), OutputFormat::Text);
        let r = set.run_query(triangle.clone(), &lopts, &shared, &Control::unlimited(), Some((&out, "q"))).unwrap();
        out.finish().unwrap();
        let rows = rows_of(&buf);
        assert_eq!(rows.len() as u128, total.min(limit as u128), "limit {limit}");
        assert_eq!(r.report.embeddings, rows.len() as u128);
        assert!(rows.iter().all(|row| all.binary_search(row).is_ok()));
        rows.windows(2).for_each(|w| assert!(w[0] != w[1]));
    }
    let on = GpuOptions { depth_first: DepthFirst::On, ..shared };
    for (q, tail) in [(&star, Tail::On), (&star, Tail::Off), (&triangle, Tail::Auto)] {
        let opts = MatchOptions { tail, ..MatchOptions::default() };
        let want = cpu_count(&data, q, &opts);
        let r = set.run_query(q.clone(), &opts, &on, &Control::unlimited(), None).unwrap();
        assert_eq!((r.report.embeddings, r.devices), (want, ordinals.len()), "{q:?} {tail:?}");
        assert!(r.dfs.launches >= 1);
        eprintln!("{tail:?}: {} embeddings, idle {:.2} ms of {:.2}", want, r.idle_ms, r.join_ms);
    }
    // One device below the sharing threshold.
    let alone = GpuOptions { shared_from: u64::MAX, ..GpuOptions::default() };
    let r = set.run_query(triangle.clone(), &opts, &alone, &Control::unlimited(), None).unwrap();
    assert_eq!((r.report.embeddings, r.devices, r.idle_ms), (total, 1, 0.0));
}
