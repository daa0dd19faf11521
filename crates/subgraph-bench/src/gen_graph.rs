//! Synthetic data graphs with exactly the requested vertex and edge counts: R-MAT (Chakrabarti,
//! Zhan & Faloutsos, SDM 2004; the Graph500 parameters 0.57/0.19/0.19/0.05), Barabási–Albert
//! (the Batagelj & Brandes 2005 edge-copy formulation, made stateless per position as in Sanders
//! & Schulz's parallel generators, 2016) and Erdős–Rényi G(n, m); vertex labels uniform or
//! power-law, optional edge labels, as the synthetic workloads of Sun & Luo (SIGMOD 2020) and
//! GSI (ICDE 2020) use.
//!
//! Determinism: candidate edges come in rounds; a round's stream is cut into fixed blocks, each
//! seeded from (seed, model, round, block), so the candidates do not depend on the thread count.
//! Each round dedups its candidates, drops those already kept, and keeps at most the number
//! still missing (chosen by a seeded hash when there are more), until exactly the requested
//! number of distinct edges is kept.

use crate::rng::{below, hash, mix, unit, Rng};
use crate::GenError;
use rayon::prelude::*;
use subgraph_core::{Graph, GraphBuilder};

/// A random graph model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Model {
    /// R-MAT with quadrant probabilities a, b, c, d (summing to 1).
    Rmat { a: f64, b: f64, c: f64, d: f64 },
    /// Barabási–Albert preferential attachment; vertex v links to earlier vertices.
    BarabasiAlbert,
    /// Erdős–Rényi G(n, m): uniform distinct edges.
    ErdosRenyi,
}

impl Model {
    /// R-MAT with the Graph500 parameters a = 0.57, b = c = 0.19, d = 0.05.
    pub const RMAT: Model = Model::Rmat { a: 0.57, b: 0.19, c: 0.19, d: 0.05 };

    /// `rmat`, `ba` or `er` (R-MAT with the default parameters).
    pub fn from_name(name: &str) -> Option<Model> {
        match name {
            "rmat" => Some(Model::RMAT),
            "ba" => Some(Model::BarabasiAlbert),
            "er" => Some(Model::ErdosRenyi),
            _ => None,
        }
    }

    fn tag(&self) -> u64 {
        match self {
            Model::Rmat { .. } => 1,
            Model::BarabasiAlbert => 2,
            Model::ErdosRenyi => 3,
        }
    }
}

/// How vertex labels are drawn from 0..L.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LabelDist {
    Uniform,
    /// P(label i) proportional to (i + 1)^-alpha.
    PowerLaw {
        alpha: f64,
    },
}

impl LabelDist {
    /// Parses `uniform` or `powerlaw:ALPHA` (ALPHA a finite number >= 0).
    pub fn parse(s: &str) -> Result<LabelDist, GenError> {
        if s == "uniform" {
            return Ok(LabelDist::Uniform);
        }
        let bad = || GenError::Spec(format!("bad label distribution '{s}' (expected uniform or powerlaw:ALPHA)"));
        let alpha: f64 = s.strip_prefix("powerlaw:").ok_or_else(bad)?.parse().map_err(|_| bad())?;
        if !alpha.is_finite() || alpha < 0.0 {
            return Err(bad());
        }
        Ok(LabelDist::PowerLaw { alpha })
    }
}

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphSpec {
    pub model: Model,
    pub vertices: usize,
    /// Distinct edges (arcs when directed) without self loops.
    pub edges: u64,
    /// Vertex labels are 0..vertex_labels.
    pub vertex_labels: u32,
    pub label_dist: LabelDist,
    /// Edge labels 0..K drawn uniformly; None labels every edge 0.
    pub edge_labels: Option<u32>,
    pub directed: bool,
    pub seed: u64,
}

/// Candidate edges per block: the unit of parallel work and of seeding.
const BLOCK: usize = 1 << 16;
/// Rounds before giving up on finding enough distinct edges.
const MAX_ROUNDS: u64 = 64;
/// Largest candidate batch of a round beyond the requested edge count.
const MIN_BATCH_CAP: u64 = 1 << 20;
const TAG_VERTEX_LABEL: u64 = 0x7665_7274;
const TAG_EDGE_LABEL: u64 = 0x6564_6765;
const TAG_SELECT: u64 = 0x7365_6c65;
/// Marks a candidate to drop (a self loop); sorts last.
const NONE: u64 = u64::MAX;

impl GraphSpec {
    fn check(&self) -> Result<(), GenError> {
        let n = self.vertices as u64;
        if n > u32::MAX as u64 {
            return Err(GenError::Spec(format!("{n} vertices exceed the 2^32 - 1 supported")));
        }
        let max = if self.directed { n * n.saturating_sub(1) } else { n * n.saturating_sub(1) / 2 };
        if self.edges > max {
            return Err(GenError::Spec(format!(
                "{} edges exceed the {max} a simple {} graph on {n} vertices can have",
                self.edges,
                if self.directed { "directed" } else { "undirected" }
            )));
        }
        if self.vertex_labels == 0 && n > 0 {
            return Err(GenError::Spec("at least one vertex label is needed".into()));
        }
        if self.edge_labels == Some(0) {
            return Err(GenError::Spec("at least one edge label is needed".into()));
        }
        if let Model::Rmat { a, b, c, d } = self.model {
            let ok = [a, b, c, d].iter().all(|p| p.is_finite() && *p >= 0.0) && ((a + b + c + d) - 1.0).abs() < 1e-9;
            if !ok {
                return Err(GenError::Spec(format!(
                    "R-MAT probabilities {a}, {b}, {c}, {d} must be >= 0 and sum to 1"
                )));
            }
        }
        Ok(())
    }

    /// The edge key of u→v (u–v normalised when undirected); NONE for a self loop.
    #[inline]
    fn key(&self, u: u64, v: u64) -> u64 {
        match (u == v, self.directed) {
            (true, _) => NONE,
            (false, true) => (u << 32) | v,
            (false, false) => (u.min(v) << 32) | u.max(v),
        }
    }
}

/// Generates the graph: exactly `spec.vertices` vertices and `spec.edges` distinct edges.
pub fn generate(spec: &GraphSpec) -> Result<Graph, GenError> {
    let keys = generate_edges(spec)?;
    let k = spec.edge_labels;
    let seed = spec.seed;
    let edges: Vec<(u32, u32, u32)> = keys
        .into_par_iter()
        .map(|key| {
            let label = k.map_or(0, |k| below(hash(seed, &[TAG_EDGE_LABEL, key]), k as u64) as u32);
            ((key >> 32) as u32, key as u32, label)
        })
        .collect();
    let labels = vertex_labels(spec);
    let (g, _) = GraphBuilder::from_parts(labels, edges, spec.directed).try_build()?;
    Ok(g)
}

/// The distinct edges as sorted keys `u << 32 | v` (u < v when undirected).
pub fn generate_edges(spec: &GraphSpec) -> Result<Vec<u64>, GenError> {
    spec.check()?;
    let target = spec.edges;
    let mut kept: Vec<u64> = Vec::new();
    let mut round = 0u64;
    while (kept.len() as u64) < target {
        if round == MAX_ROUNDS {
            return Err(GenError::Spec(format!(
                "found only {} distinct edges of the {target} asked after {MAX_ROUNDS} rounds: the model \
                 rarely produces new edges at this density; ask for fewer edges or more vertices",
                kept.len()
            )));
        }
        let missing = target - kept.len() as u64;
        // Oversample when earlier rounds were short, within a bound on memory.
        let batch = missing.saturating_mul(1 << round.min(20)).min(target.max(MIN_BATCH_CAP)).max(missing);
        let mut fresh = candidates(spec, round, batch as usize);
        fresh.par_sort_unstable();
        fresh.dedup();
        if fresh.last() == Some(&NONE) {
            fresh.pop();
        }
        if !kept.is_empty() {
            fresh = fresh.into_par_iter().filter(|k| kept.binary_search(k).is_err()).collect();
        }
        if fresh.len() as u64 > missing {
            let salt = hash(spec.seed, &[TAG_SELECT, round]);
            fresh.par_sort_unstable_by_key(|&k| (mix(k ^ salt), k));
            fresh.truncate(missing as usize);
            fresh.par_sort_unstable();
        }
        merge_sorted(&mut kept, &fresh);
        round += 1;
    }
    Ok(kept)
}

/// Merges sorted `new` into sorted `kept` in place, from the back.
fn merge_sorted(kept: &mut Vec<u64>, new: &[u64]) {
    let (mut i, mut j) = (kept.len(), new.len());
    kept.resize(i + j, 0);
    while j > 0 {
        let k = i + j - 1;
        if i > 0 && kept[i - 1] > new[j - 1] {
            kept[k] = kept[i - 1];
            i -= 1;
        } else {
            kept[k] = new[j - 1];
            j -= 1;
        }
    }
}

/// `count` candidate edge keys of round `round`, NONE for self loops.
fn candidates(spec: &GraphSpec, round: u64, count: usize) -> Vec<u64> {
    let mut out = vec![NONE; count];
    let n = spec.vertices as u64;
    out.par_chunks_mut(BLOCK).enumerate().for_each(|(block, chunk)| {
        let mut rng = Rng::new(hash(spec.seed, &[spec.model.tag(), round, block as u64]));
        let first = (block * BLOCK) as u64;
        for (i, slot) in chunk.iter_mut().enumerate() {
            let (u, v) = match spec.model {
                Model::Rmat { a, b, c, .. } => rmat_edge(&mut rng, n, a, b, c),
                Model::ErdosRenyi => (rng.below(n), rng.below(n)),
                Model::BarabasiAlbert if round == 0 => {
                    let e = first + i as u64;
                    (ba_source(e, n, spec.edges), ba_endpoint(spec, 2 * e + 1))
                }
                // Top-up edges: a uniform source and a preferential target.
                Model::BarabasiAlbert => (rng.below(n), ba_endpoint(spec, rng.below(2 * spec.edges))),
            };
            *slot = spec.key(u, v);
        }
    });
    out
}

/// One R-MAT edge on the smallest power of two covering n, redrawn until both ends are below n.
fn rmat_edge(rng: &mut Rng, n: u64, a: f64, b: f64, c: f64) -> (u64, u64) {
    let scale = 64 - (n - 1).leading_zeros();
    loop {
        let (mut u, mut v) = (0u64, 0u64);
        for _ in 0..scale {
            let r = rng.unit();
            let (bu, bv) = if r < a {
                (0, 0)
            } else if r < a + b {
                (0, 1)
            } else if r < a + b + c {
                (1, 0)
            } else {
                (1, 1)
            };
            u = (u << 1) | bu;
            v = (v << 1) | bv;
        }
        if u < n && v < n {
            return (u, v);
        }
    }
}

/// The source of round-0 Barabási–Albert edge e: the edges are spread evenly over the vertices
/// in id order, so vertex v adds about m / n edges.
#[inline]
fn ba_source(e: u64, n: u64, m: u64) -> u64 {
    ((e as u128 * n as u128) / m as u128) as u64
}

/// The vertex at position p of the round-0 endpoint sequence (source of edge e at 2e, target at
/// 2e + 1): a target copies a uniformly chosen earlier position (itself included at 2e, giving
/// a self loop that is dropped), which is preferential attachment (Batagelj & Brandes).
fn ba_endpoint(spec: &GraphSpec, mut p: u64) -> u64 {
    let n = spec.vertices as u64;
    while p % 2 == 1 {
        p = below(hash(spec.seed, &[Model::BarabasiAlbert.tag(), u64::MAX, p]), p);
    }
    ba_source(p / 2, n, spec.edges)
}

/// The vertex labels of `spec`, each a function of (seed, vertex).
pub fn vertex_labels(spec: &GraphSpec) -> Vec<u32> {
    let l = spec.vertex_labels.max(1);
    let seed = spec.seed;
    let cdf: Vec<f64> = match spec.label_dist {
        LabelDist::Uniform => Vec::new(),
        LabelDist::PowerLaw { alpha } => {
            let w: Vec<f64> = (0..l).map(|i| ((i + 1) as f64).powf(-alpha)).collect();
            let total: f64 = w.iter().sum();
            w.iter()
                .scan(0.0, |acc, x| {
                    *acc += x / total;
                    Some(*acc)
                })
                .collect()
        }
    };
    (0..spec.vertices as u64)
        .into_par_iter()
        .map(|v| {
            let bits = hash(seed, &[TAG_VERTEX_LABEL, v]);
            match spec.label_dist {
                LabelDist::Uniform => below(bits, l as u64) as u32,
                LabelDist::PowerLaw { .. } => cdf.partition_point(|&c| c <= unit(bits)).min(l as usize - 1) as u32,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::io::sunluo;
    use subgraph_core::Dir;

    fn spec(model: Model, n: usize, m: u64, directed: bool) -> GraphSpec {
        GraphSpec {
            model,
            vertices: n,
            edges: m,
            vertex_labels: 4,
            label_dist: LabelDist::Uniform,
            edge_labels: None,
            directed,
            seed: 42,
        }
    }

    fn digest(g: &Graph) -> u64 {
        let mut out = Vec::new();
        sunluo::write(g, &mut out).unwrap();
        xxhash_rust::xxh3::xxh3_64(&out)
    }

    fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
    }

    #[test]
    fn exact_counts_for_every_model() {
        for model in [Model::RMAT, Model::BarabasiAlbert, Model::ErdosRenyi] {
            for directed in [false, true] {
                let s = spec(model, 3000, 40_000, directed);
                let g = generate(&s).unwrap();
                assert_eq!(g.num_vertices(), 3000, "{model:?}");
                assert_eq!(g.num_edges(), 40_000, "{model:?}");
                assert_eq!(g.is_directed(), directed);
                let keys = generate_edges(&s).unwrap();
                assert!(keys.windows(2).all(|w| w[0] < w[1]));
                assert!(keys.iter().all(|&k| (k >> 32) != (k & 0xffff_ffff)));
            }
        }
        // Dense enough that duplicates need several top-up rounds, up to the complete graph.
        let g = generate(&spec(Model::ErdosRenyi, 60, 60 * 59 / 2, false)).unwrap();
        assert_eq!(g.num_edges(), 1770);
        let g = generate(&spec(Model::RMAT, 300, 20_000, false)).unwrap();
        assert_eq!(g.num_edges(), 20_000);
    }

    #[test]
    fn same_bytes_for_same_seed_at_any_thread_count() {
        for model in [Model::RMAT, Model::BarabasiAlbert, Model::ErdosRenyi] {
            let mut s = spec(model, 5000, 200_000, false);
            s.edge_labels = Some(3);
            let one = in_pool(1, || digest(&generate(&s).unwrap()));
            let three = in_pool(3, || digest(&generate(&s).unwrap()));
            assert_eq!(one, three, "{model:?}");
            s.seed += 1;
            assert_ne!(one, digest(&generate(&s).unwrap()), "{model:?}");
        }
    }

    #[test]
    fn labels_follow_the_distribution() {
        let mut s = spec(Model::ErdosRenyi, 100_000, 10, false);
        let count = |labels: &[u32], l: u32| labels.iter().filter(|&&x| x == l).count() as f64 / labels.len() as f64;
        let labels = vertex_labels(&s);
        for l in 0..4 {
            assert!((count(&labels, l) - 0.25).abs() < 0.01, "{l}: {}", count(&labels, l));
        }
        assert!(labels.iter().all(|&l| l < 4));
        s.vertex_labels = 3;
        s.label_dist = LabelDist::parse("powerlaw:2").unwrap();
        let labels = vertex_labels(&s);
        let norm = 1.0 + 0.25 + 1.0 / 9.0;
        for (l, w) in [(0, 1.0), (1, 0.25), (2, 1.0 / 9.0)] {
            assert!((count(&labels, l) - w / norm).abs() < 0.01, "{l}: {}", count(&labels, l));
        }
        s.edges = 50_000;
        s.edge_labels = Some(5);
        let g = generate(&s).unwrap();
        assert_eq!(g.edge_label_values(), &[0, 1, 2, 3, 4]);
        assert_eq!(g.vertex_label_values(), &[0, 1, 2]);
    }

    #[test]
    fn models_have_their_shape() {
        let n = 20_000;
        let degrees = |g: &Graph| {
            let mut d: Vec<u32> = (0..n as u32).map(|v| g.degree(v, Dir::Out)).collect();
            d.sort_unstable();
            d
        };
        let er = degrees(&generate(&spec(Model::ErdosRenyi, n, 100_000, false)).unwrap());
        let rmat = degrees(&generate(&spec(Model::RMAT, n, 100_000, false)).unwrap());
        let ba = degrees(&generate(&spec(Model::BarabasiAlbert, n, 100_000, false)).unwrap());
        // Average degree 10: ER stays near it, the skewed models have hubs far above it.
        assert!(*er.last().unwrap() < 40, "{}", er.last().unwrap());
        assert!(*rmat.last().unwrap() > 300, "{}", rmat.last().unwrap());
        assert!(*ba.last().unwrap() > 150, "{}", ba.last().unwrap());
        // In BA every vertex after the first few attaches about m / n = 5 edges.
        assert!(ba[n / 100] >= 3, "{}", ba[n / 100]);
        // Directed BA points from later vertices to earlier ones.
        let g = generate(&spec(Model::BarabasiAlbert, 2000, 10_000, true)).unwrap();
        let forward = g.edges().filter(|&(u, v, _)| u > v).count();
        assert!(forward as u64 > 9 * g.num_edges() / 10, "{forward}");
    }

    #[test]
    fn rejects_impossible_specs() {
        let err = |s: GraphSpec| generate(&s).unwrap_err().to_string();
        assert_eq!(
            err(spec(Model::ErdosRenyi, 10, 46, false)),
            "46 edges exceed the 45 a simple undirected graph on 10 vertices can have"
        );
        assert!(generate(&spec(Model::ErdosRenyi, 10, 90, true)).is_ok());
        let mut s = spec(Model::Rmat { a: 0.5, b: 0.5, c: 0.5, d: 0.0 }, 10, 5, false);
        assert!(err(s.clone()).contains("sum to 1"));
        s.model = Model::RMAT;
        s.edge_labels = Some(0);
        assert_eq!(err(s), "at least one edge label is needed");
        assert!(LabelDist::parse("powerlaw:-1").is_err());
        assert!(LabelDist::parse("zipf").is_err());
        // R-MAT cannot fill the pairs of its rarest quadrant in 64 rounds.
        let s = spec(Model::Rmat { a: 0.97, b: 0.01, c: 0.01, d: 0.01 }, 256, 60_000, true);
        assert!(err(s).contains("rounds"));
    }
}
