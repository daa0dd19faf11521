//! Embedding counts without enumerating the embeddings: #Emb(Q) = Σ_ρ μ(ρ) · #Hom(Q/ρ), over
//! the partitions ρ of Q's vertices whose blocks hold vertices of one label and no query edge
//! (the quotients Q/ρ are Q's "spasm"; Curticapean, Dell & Marx, STOC 2017; the leaf counts of
//! DecoMine and GraphPi, `../shared/papers/heavy-queries.md`, are its smallest case), with
//! μ(ρ) = Π_B (−1)^{|B|−1} (|B|−1)!, the Möbius function of the partition lattice. Each
//! homomorphism count is dynamic programming over the quotient's block–cut tree (`hom`), whose
//! work grows with the data's edges and two-step neighbourhoods, not with the answer: queries
//! with 10^13 to 10^18 embeddings are counted in seconds where enumeration, even one match per
//! automorphism class, would take days.

mod hom;
mod pattern;
mod plan;

use crate::bitset::Bitset;
use crate::sink::Control;
use crate::{Graph, Query, Semantics};
pub use pattern::{Declined, Pattern};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `--spasm`: whether a count may come from the quotients' homomorphisms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Where the engine predicts the enumeration to take at least [`AUTO_FROM_MS`] and the
    /// spasm's plans predict at most [`AUTO_SHARE`] of that ([`NS_PER_READ`]), for at most
    /// that share of the prediction, the plans made within [`AUTO_PLAN_SHARE`] of it; else,
    /// or where it does not finish, enumerate.
    #[default]
    Auto,
    /// Whenever the query is counted (no output, no limit) and not induced.
    On,
    Off,
}

impl Mode {
    pub fn from_name(name: &str) -> Option<Mode> {
        match name {
            "auto" => Some(Mode::Auto),
            "on" => Some(Mode::On),
            "off" => Some(Mode::Off),
            _ => None,
        }
    }
}

/// The predicted enumeration time (milliseconds, on the device that would enumerate) from
/// which `auto` counts by the spasm: below, enumeration is about as fast (G1's dense_8_1,
/// 9·10^11 embeddings: 0.24 s on the H200, 1.8 s by the spasm on two cores).
pub const AUTO_FROM_MS: f64 = 1000.0;
/// The share of the predicted enumeration time `auto` gives the spasm before it enumerates
/// instead: a wrong guess costs at most this much more.
pub const AUTO_SHARE: f64 = 0.5;
/// The share of the predicted enumeration time `auto` gives the planning of the quotients'
/// counts: where the prediction is far above the query's real time, the plans of a 16-vertex
/// query's quotients took up to 0.46 s before `auto` declined (yeast's sparse_16_86, whose
/// enumeration takes 0.4 ms; declined attempts were 1.5 of the 4.8 s yeast's 844 queries
/// took on one thread, 2026-11-29).
pub const AUTO_PLAN_SHARE: f64 = 0.01;

/// Nanoseconds one read of the plans' estimate takes on one thread: G1's queries on the
/// 16-core host (2026-11-26, bench/results/2026-11-26-spasm.md) took 150–300 ns for the dense
/// ones, whose work the estimate sees, and up to 3,200 ns for those whose cycles push sums
/// further than it follows; taken low, so that a count the estimate underprices is still
/// tried (within its budget), and one it prices above the enumeration is not.
pub const NS_PER_READ: f64 = 300.0;

/// A count the spasm finished: the embeddings, the distinct quotients counted and the
/// milliseconds it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counted {
    pub embeddings: u128,
    pub terms: usize,
    pub ms: f64,
}

/// What a counting query needs to be counted by the spasm.
#[derive(Debug, Clone, Copy)]
pub struct Attempt {
    pub semantics: Semantics,
    pub mode: Mode,
    /// No match is written.
    pub counting: bool,
    pub limit: Option<u64>,
    /// The engine's predicted enumeration time, milliseconds.
    pub predicted_ms: f64,
}

/// Counts `query` by its spasm where `a` allows and calls for it: embeddings by every
/// quotient, homomorphisms by the query alone (induced embeddings never). None where it does
/// not apply, declines, or does not finish within `auto`'s share of the prediction; the
/// caller then enumerates (at once stopped too, where `control` stopped this).
pub fn attempt(data: &Graph, query: &Query, a: Attempt, control: &Control) -> Option<Counted> {
    if a.mode == Mode::Off || !a.counting || a.limit.is_some() || a.semantics == Semantics::Induced {
        return None;
    }
    if a.mode == Mode::Auto && (a.predicted_ms.is_nan() || a.predicted_ms < AUTO_FROM_MS || is_clique(query)) {
        return None;
    }
    let start = Instant::now();
    // `auto` counts where its own predicted time fits the share of the enumeration's: its
    // budget, which stops it where the prediction erred. Its terms and their plans are given
    // up as soon as the work planned passes that share, or their time `AUTO_PLAN_SHARE` of
    // the prediction.
    let threads = rayon::current_num_threads().max(1) as f64;
    let limits = match a.mode {
        Mode::Auto => Limits {
            work: a.predicted_ms * AUTO_SHARE * threads / (NS_PER_READ * 1e-6),
            until: start.checked_add(Duration::from_secs_f64((a.predicted_ms * AUTO_PLAN_SHARE * 1e-3).min(3600.0))),
        },
        _ => Limits::NONE,
    };
    // The query is its own term: where it cannot be planned, no quotient need be made.
    let own = query_term(query).ok()?;
    if own.as_ref().is_some_and(|t| !plan::shaped(&t.quotient)) {
        return None;
    }
    let terms: Vec<Term> = match a.semantics {
        Semantics::Homomorphism => own.into_iter().collect(),
        _ => terms_until(query, limits.until).ok()?,
    };
    let planned = planned(data, &terms, limits).ok()?;
    // A day at most: a prediction of years is no budget at all.
    let budget = Duration::from_secs_f64((a.predicted_ms * AUTO_SHARE * 1e-3).min(86_400.0));
    let trial = match a.mode {
        Mode::Auto => control.trial(budget),
        _ => control.trial(Duration::from_secs(86_400 * 365)),
    };
    let embeddings = sum_planned(&planned, &terms, &trial).ok()?;
    Some(Counted { embeddings, terms: terms.len(), ms: start.elapsed().as_secs_f64() * 1e3 })
}

/// Whether every two query vertices are adjacent. A clique's only term is the query itself,
/// one block with no tree for the dynamic programme to fold: counting it is enumerating it, so
/// `auto` enumerates (a triangle on an R-MAT graph of 2^22 edges, 4 threads: 3.8 s of attempt
/// before 1.8 s of enumeration, bench/results/2026-11-30-cluster-balance.md).
fn is_clique(query: &Query) -> bool {
    let n = query.num_vertices() as u32;
    (0..n).all(|a| (a + 1..n).all(|b| query.adjacent(a, b)))
}

/// The query itself as a pattern (every block a single vertex).
fn query_term(query: &Query) -> Result<Option<Term>, Declined> {
    check_shape(query)?;
    let singletons: Vec<Vec<u32>> = (0..query.num_vertices() as u32).map(|v| vec![v]).collect();
    quotient(query, &singletons)
}

/// Largest query this counts (μ's factorials stay within i64, and the partitions few).
pub const MAX_VERTICES: usize = 20;
/// Most quotients one query may have; a query with more is enumerated.
pub const MAX_TERMS: usize = 4096;

/// One term of the sum: μ(ρ) and the quotient Q/ρ.
#[derive(Debug, Clone)]
pub struct Term {
    pub coefficient: i64,
    pub quotient: Pattern,
}

/// The terms of `query`'s embedding count: one per partition of its vertices into blocks of
/// one label with no query edge inside a block (a quotient with an edge onto itself has no
/// homomorphism, the data having no self loops); quotients that two differently labelled
/// edges make empty are left out.
pub fn terms(query: &Query) -> Result<Vec<Term>, Declined> {
    terms_until(query, None)
}

/// [`terms`], given up (`Stopped`) once `until` passes.
fn terms_until(query: &Query, until: Option<Instant>) -> Result<Vec<Term>, Declined> {
    check_shape(query)?;
    let late = || until.is_some_and(|u| Instant::now() >= u);
    let mut blocks: Vec<Vec<u32>> = Vec::new();
    let mut terms = Terms::default();
    partitions(query, 0, &mut blocks, &mut terms, &late)?;
    Ok(terms.distinct)
}

/// The terms made so far: one per isomorphism class of quotients, each with the coefficients
/// of its partitions summed (a path's {0,2} and {1,3} are one path of three), and how many
/// partitions made them.
#[derive(Default)]
struct Terms {
    distinct: Vec<Term>,
    /// The indices into `distinct` of the quotients of each fingerprint (`Pattern::invariant`):
    /// only those are compared (all with all took 60–90 ms for the 1,800–2,300 quotients of
    /// yeast's sparse_16_63 and sparse_16_86).
    alike: HashMap<u64, Vec<usize>>,
    partitions: usize,
}

impl Terms {
    /// Adds one partition's term: to its class, or as a new one. Every quotient is a term (the
    /// partitions of one quotient have as many blocks, so their μ share a sign and never
    /// cancel), and every term is counted or none: a new one that cannot be planned declines
    /// the query at once (yeast's sparse_16_63: its 362nd of 2,255 quotients, after 60 ms of
    /// quotients and 160 ms of plans).
    fn add(&mut self, t: Term) -> Result<(), Declined> {
        self.partitions += 1;
        let key = t.quotient.invariant();
        if let Some(same) = key.as_ref().and_then(|k| self.alike.get(k)) {
            if let Some(&i) = same.iter().find(|&&i| self.distinct[i].quotient.isomorphic(&t.quotient)) {
                self.distinct[i].coefficient += t.coefficient;
                return Ok(());
            }
        }
        if !plan::shaped(&t.quotient) {
            return Err(Declined::Block);
        }
        if let Some(k) = key {
            self.alike.entry(k).or_default().push(self.distinct.len());
        }
        self.distinct.push(t);
        Ok(())
    }
}

/// At most [`MAX_VERTICES`] vertices, in one component.
fn check_shape(query: &Query) -> Result<(), Declined> {
    match query.num_vertices() <= MAX_VERTICES && query.components() == 1 {
        true => Ok(()),
        false => Err(Declined::Shape),
    }
}

/// Extends the partition of vertices 0..u (`blocks`) in every way, adding each full one's
/// term; `Stopped` once `late` says so.
fn partitions(
    query: &Query,
    u: usize,
    blocks: &mut Vec<Vec<u32>>,
    terms: &mut Terms,
    late: &dyn Fn() -> bool,
) -> Result<(), Declined> {
    if u == query.num_vertices() {
        if terms.partitions >= MAX_TERMS {
            return Err(Declined::Shape);
        }
        if late() {
            return Err(Declined::Stopped);
        }
        if let Some(t) = quotient(query, blocks)? {
            terms.add(t)?;
        }
        return Ok(());
    }
    let v = u as u32;
    for b in 0..blocks.len() {
        let fits = query.label(blocks[b][0]) == query.label(v) && blocks[b].iter().all(|&w| !query.adjacent(v, w));
        if fits {
            blocks[b].push(v);
            partitions(query, u + 1, blocks, terms, late)?;
            blocks[b].pop();
        }
    }
    blocks.push(vec![v]);
    partitions(query, u + 1, blocks, terms, late)?;
    blocks.pop();
    Ok(())
}

/// The term of one partition; None where two query edges between the same two blocks carry
/// different labels (no data edge carries both: no homomorphism).
fn quotient(query: &Query, blocks: &[Vec<u32>]) -> Result<Option<Term>, Declined> {
    let n = query.num_vertices();
    let mut block_of = vec![0u32; n];
    let mut coefficient = 1i64;
    for (b, members) in blocks.iter().enumerate() {
        members.iter().for_each(|&v| block_of[v as usize] = b as u32);
        let k = members.len() as i64;
        let factorial: i64 = (1..k).product();
        coefficient *= if k % 2 == 1 { factorial } else { -factorial };
    }
    let g = query.graph();
    let directed = g.is_directed();
    let mut edges: Vec<(u32, u32, u32)> = Vec::new();
    for (a, b, label) in g.edges() {
        let (qa, qb) = (block_of[a as usize], block_of[b as usize]);
        let e = if directed || qa < qb { (qa, qb, label) } else { (qb, qa, label) };
        if edges.contains(&e) {
            continue;
        }
        if let Some(other) = edges.iter().find(|o| (o.0, o.1) == (e.0, e.1) || (o.0, o.1) == (e.1, e.0)) {
            // The same ordered pair with another label: empty. The opposite direction too:
            // the block–cut counts take one edge per pair.
            return if (other.0, other.1) == (e.0, e.1) { Ok(None) } else { Err(Declined::Shape) };
        }
        edges.push(e);
    }
    let labels = blocks.iter().map(|m| query.label(m[0])).collect();
    let allowed = blocks
        .iter()
        .map(|m| {
            let sets: Vec<&Bitset> = m.iter().filter_map(|&v| g.allowed(v)).collect();
            let (first, rest) = sets.split_first()?;
            Some(Arc::new(rest.iter().fold((*first).clone(), |acc, s| acc.and(s))))
        })
        .collect();
    Ok(Some(Term { coefficient, quotient: Pattern { labels, allowed, edges, directed } }))
}

/// The number of embeddings of `query` in `data` (injective, non-induced), as Σ μ · #Hom over
/// its quotients, on every core of the current rayon pool.
pub fn count(data: &Graph, query: &Query, control: &Control) -> Result<u128, Declined> {
    sum(data, &terms(query)?, control)
}

/// The terms with their counting plans.
struct Planned<'a> {
    classes: plan::Classes<'a>,
    plans: Vec<plan::Plan>,
}

/// Where the planning of the terms gives up: past this much work (reads) planned, or this
/// instant.
#[derive(Debug, Clone, Copy)]
struct Limits {
    work: f64,
    until: Option<Instant>,
}

impl Limits {
    const NONE: Limits = Limits { work: f64::INFINITY, until: None };
}

/// Plans every term; `Block` where one cannot be counted, `Stopped` where `limits` are
/// passed.
fn planned<'a>(data: &'a Graph, terms: &[Term], limits: Limits) -> Result<Planned<'a>, Declined> {
    let classes = plan::Classes::new(data);
    let mut plans = Vec::with_capacity(terms.len());
    let mut work = 0.0;
    for t in terms {
        let plan = plan::plan(&t.quotient, &classes).ok_or(Declined::Block)?;
        work += plan.cost;
        plans.push(plan);
        if work > limits.work || limits.until.is_some_and(|u| Instant::now() >= u) {
            return Err(Declined::Stopped);
        }
    }
    Ok(Planned { classes, plans })
}

/// Σ μ · #Hom over `terms`.
fn sum(data: &Graph, terms: &[Term], control: &Control) -> Result<u128, Declined> {
    sum_planned(&planned(data, terms, Limits::NONE)?, terms, control)
}

/// Σ μ · #Hom over `terms`, by their plans.
fn sum_planned(p: &Planned, terms: &[Term], control: &Control) -> Result<u128, Declined> {
    let (mut plus, mut minus) = (0u128, 0u128);
    for (t, plan) in terms.iter().zip(&p.plans) {
        let h = hom::count(&p.classes, &t.quotient, plan, control)?;
        let scaled = h.checked_mul(t.coefficient.unsigned_abs() as u128).ok_or(Declined::Size)?;
        let side = if t.coefficient > 0 { &mut plus } else { &mut minus };
        *side = side.checked_add(scaled).ok_or(Declined::Size)?;
    }
    // Σ μ · #Hom counts injective maps: never negative.
    plus.checked_sub(minus).ok_or(Declined::Size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle;
    use crate::{GraphBuilder, Semantics};
    use proptest::prelude::*;

    fn graph(directed: bool, labels: Vec<u32>, edges: Vec<(u32, u32, u32)>) -> Graph {
        GraphBuilder::from_parts(labels, edges, directed).build().0
    }

    /// Past `auto`'s limits (an instant gone by, no work allowed) the terms and their plans
    /// are given up, and the query is enumerated instead; without limits they are made.
    #[test]
    fn planning_gives_up_past_its_limits() {
        let data = graph(false, vec![0; 5], vec![(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 4, 0)]);
        let q = Query::new(graph(false, vec![0; 4], vec![(0, 1, 0), (1, 2, 0), (2, 3, 0)]), &data, Semantics::Embed)
            .unwrap();
        let past = Some(Instant::now());
        assert!(matches!(terms_until(&q, past), Err(Declined::Stopped)));
        let terms = terms_until(&q, None).unwrap();
        assert_eq!(terms.len(), 4);
        assert!(matches!(planned(&data, &terms, Limits { work: 0.0, until: None }), Err(Declined::Stopped)));
        assert!(matches!(planned(&data, &terms, Limits { work: f64::INFINITY, until: past }), Err(Declined::Stopped)));
        assert!(planned(&data, &terms, Limits::NONE).is_ok());
    }

    /// A path of four equally labelled vertices: five partitions have no edge inside a block
    /// (the finest, {0,2}, {0,3}, {1,3} and {0,2}{1,3}; no block of three), each with its
    /// Möbius coefficient, the two isomorphic quotients as one term.
    #[test]
    fn path_terms() {
        let data = graph(false, vec![0; 5], vec![(0, 1, 0)]);
        let q = Query::new(graph(false, vec![0; 4], vec![(0, 1, 0), (1, 2, 0), (2, 3, 0)]), &data, Semantics::Embed)
            .unwrap();
        let t = terms(&q).unwrap();
        let mut coefficients: Vec<i64> = t.iter().map(|t| t.coefficient).collect();
        coefficients.sort();
        // The path itself +1; {0,2} and {1,3}, both a path of three, −1 each; {0,3} a
        // triangle −1; {0,2}{1,3} an edge +1.
        assert_eq!(coefficients, vec![-2, -1, 1, 1]);
    }

    #[test]
    fn triangle_in_k4() {
        let k4: Vec<(u32, u32, u32)> = (0..4u32).flat_map(|a| (a + 1..4).map(move |b| (a, b, 0))).collect();
        let data = graph(false, vec![0; 4], k4);
        let q = Query::new(graph(false, vec![0; 3], vec![(0, 1, 0), (1, 2, 0), (0, 2, 0)]), &data, Semantics::Embed)
            .unwrap();
        assert_eq!(count(&data, &q, &Control::unlimited()), Ok(24));
    }

    /// `auto` leaves a triangle to enumeration however long it is predicted to take, and counts
    /// a path of three (not a clique) by its terms; `on` counts both.
    #[test]
    fn auto_enumerates_cliques() {
        let k4: Vec<(u32, u32, u32)> = (0..4u32).flat_map(|a| (a + 1..4).map(move |b| (a, b, 0))).collect();
        let data = graph(false, vec![0; 4], k4);
        let triangle = graph(false, vec![0; 3], vec![(0, 1, 0), (1, 2, 0), (0, 2, 0)]);
        let path = graph(false, vec![0; 3], vec![(0, 1, 0), (1, 2, 0)]);
        let on =
            Attempt { semantics: Semantics::Embed, mode: Mode::On, counting: true, limit: None, predicted_ms: 1e9 };
        let auto = Attempt { mode: Mode::Auto, ..on };
        for (qg, clique, want) in [(triangle, true, 24), (path, false, 24)] {
            let q = Query::new(qg, &data, Semantics::Embed).unwrap();
            assert_eq!(is_clique(&q), clique);
            assert_eq!(attempt(&data, &q, on, &Control::unlimited()).map(|c| c.embeddings), Some(want));
            let by_auto = attempt(&data, &q, auto, &Control::unlimited()).map(|c| c.embeddings);
            assert_eq!(by_auto, (!clique).then_some(want));
        }
    }

    /// Random data (directed or not, two edge labels, a few vertex labels) and a random
    /// connected query of up to seven vertices: the count equals the oracle's, or the query is
    /// declined for its shape (never a wrong number).
    fn case() -> impl Strategy<Value = (Graph, Graph)> {
        (any::<bool>(), 1u32..4, 1u32..3, 7usize..12, 1usize..8, 0usize..9, any::<u64>()).prop_map(
            |(directed, nl, ne, n, qn, extra, seed)| {
                let mut step = crate::testing::xorshift(seed | 1);
                let mut next = move |m: u64| step(m) as u32;
                let labels: Vec<u32> = (0..n).map(|_| next(nl as u64)).collect();
                let edges: Vec<(u32, u32, u32)> =
                    (0..n * 3).map(|_| (next(n as u64), next(n as u64), next(ne as u64))).collect();
                let data = graph(directed, labels, edges);
                let qlabels: Vec<u32> = (0..qn).map(|_| next(nl as u64)).collect();
                // A spanning tree, then a few more edges.
                let mut qedges: Vec<(u32, u32, u32)> =
                    (1..qn as u32).map(|v| (next(v as u64), v, next(ne as u64))).collect();
                for _ in 0..extra {
                    let (a, b) = (next(qn as u64), next(qn as u64));
                    if a != b && !qedges.iter().any(|e| (e.0, e.1) == (a, b) || (e.0, e.1) == (b, a)) {
                        qedges.push((a, b, next(ne as u64)));
                    }
                }
                (data, graph(directed, qlabels, qedges))
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// Homomorphisms through [`attempt`] (the query as its only term) and embeddings
        /// through it and [`count`]: the oracle's numbers, or nothing.
        #[test]
        fn attempts_equal_the_oracle((data, qg) in case(), hom in any::<bool>()) {
            let semantics = if hom { Semantics::Homomorphism } else { Semantics::Embed };
            let q = Query::new(qg, &data, semantics).unwrap();
            let want = oracle::count(&data, &q, semantics);
            let a = Attempt { semantics, mode: Mode::On, counting: true, limit: None, predicted_ms: 0.0 };
            let on = attempt(&data, &q, a, &Control::unlimited());
            if let Some(c) = on {
                prop_assert_eq!(c.embeddings, want);
            }
            // `auto` with an enumeration predicted far above the spasm's own estimate: the same,
            // but for cliques, which it always enumerates.
            let high = Attempt { mode: Mode::Auto, predicted_ms: 1e9, ..a };
            let expected = on.filter(|_| !is_clique(&q)).map(|c| c.embeddings);
            prop_assert_eq!(attempt(&data, &q, high, &Control::unlimited()).map(|c| c.embeddings), expected);
            // Never under `auto` below its threshold, nor with a limit, output or induced.
            let low = Attempt { mode: Mode::Auto, predicted_ms: AUTO_FROM_MS / 2.0, ..a };
            prop_assert!(attempt(&data, &q, low, &Control::unlimited()).is_none());
            for no in [Attempt { limit: Some(5), ..a }, Attempt { counting: false, ..a }, Attempt { semantics: Semantics::Induced, ..a }] {
                prop_assert!(attempt(&data, &q, no, &Control::unlimited()).is_none());
            }
        }

        /// Every term's coefficient has the sign of (−1)^(n − its vertices), the sign every
        /// partition of its quotient has: the partitions of one quotient never cancel, so one
        /// that cannot be planned declines the whole sum. A quotient with its vertices renamed
        /// keeps its invariant and is found isomorphic.
        #[test]
        fn terms_keep_their_sign_and_invariant((data, qg) in case()) {
            let q = Query::new(qg, &data, Semantics::Embed).unwrap();
            let n = q.num_vertices() as i32;
            for t in terms(&q).unwrap_or_default() {
                let p = &t.quotient;
                prop_assert!(t.coefficient != 0);
                prop_assert_eq!(t.coefficient > 0, (n - p.labels.len() as i32) % 2 == 0);
                let last = p.labels.len() as u32 - 1;
                let renamed = Pattern {
                    labels: p.labels.iter().rev().copied().collect(),
                    allowed: vec![None; p.labels.len()],
                    edges: p.edges.iter().map(|&(a, b, l)| (last - a, last - b, l)).collect(),
                    directed: p.directed,
                };
                if p.allowed.iter().all(Option::is_none) {
                    prop_assert_eq!(p.invariant(), renamed.invariant());
                    prop_assert!(p.isomorphic(&renamed));
                }
            }
        }

        #[test]
        fn equals_the_oracle((data, qg) in case()) {
            let q = Query::new(qg, &data, Semantics::Embed).unwrap();
            let want = oracle::count(&data, &q, Semantics::Embed);
            match count(&data, &q, &Control::unlimited()) {
                Ok(got) => prop_assert_eq!(got, want),
                Err(why) => prop_assert!(why == Declined::Shape || why == Declined::Block, "{:?}", why),
            }
        }
    }
}
