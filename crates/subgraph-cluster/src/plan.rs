//! The plan every process makes alike: subgraph-core's planner orders the query by GQL's rule
//! (Sun & Luo, SIGMOD 2020) over the global candidate sets (`filter`), which every worker holds
//! alike after their exchange, so the order and the symmetry-breaking restrictions
//! (`Plan::shaped`) are the same everywhere; each position then lists the earlier positions
//! whose adjacency lists extend it, the relations BiGJoin intersects (Ammar et al., VLDB 2018
//! §3), and the bitset its candidates are checked against. A counting query may have its last
//! pairwise non-adjacent vertices moved to the end and counted together (`tail`), as on one
//! host (`subgraph_core::planner::tail_order_by`).

use crate::error::{Error, Result};
use subgraph_core::automorphism::Automorphisms;
use subgraph_core::bitset::Bitset;
use subgraph_core::estimate::sampling::Sampler;
use subgraph_core::filter::Candidates;
use subgraph_core::order::Order;
use subgraph_core::plan::{Plan, PlanOptions, Symmetry, Tail};
use subgraph_core::planner::{tail_order_by, GATE_PARTICLES};
use subgraph_core::sink::Control;
use subgraph_core::tail::label_groups;
use subgraph_core::{Dir, Graph, Query, Semantics};

/// The orders every process computes alike from the query and the global candidate sets.
pub const ORDERS: [Order; 2] = [Order::Gql, Order::Ri];

/// The order without `--order`.
pub const DEFAULT_ORDER: Order = Order::Gql;

/// An earlier position whose data vertex's adjacency list the candidates must be in: the
/// data edge goes from that vertex in direction `dir` to the candidate with label `edge_label`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Back {
    pub from: usize,
    pub dir: Dir,
    pub edge_label: u32,
}

/// One position of the matching order.
#[derive(Debug, Clone)]
pub struct Step {
    pub vertex: u32,
    pub label: u32,
    /// Sorted by position; empty for the first vertex of a connected component.
    pub back: Vec<Back>,
    /// Earlier positions whose data vertex must be smaller than this one's.
    pub greater_than: Vec<usize>,
    /// The query vertex's global candidates, sorted: where a component's first position (and
    /// the roots) take theirs from.
    pub candidates: Vec<u32>,
    /// The same candidates as a bitset over the data vertices: what a proposed vertex is
    /// checked against.
    pub bits: Bitset,
}

/// The distributed plan of one query.
#[derive(Debug, Clone)]
pub struct ClusterPlan {
    pub steps: Vec<Step>,
    /// Embeddings each counted match stands for (symmetry breaking).
    pub multiplier: u128,
    /// The automorphisms behind the restrictions, where there are any: a match written as
    /// rows stands for its images under each (`multiplier` of them).
    pub symmetry: Option<Automorphisms>,
    pub restrictions: usize,
    /// The global candidates, summed over the query vertices.
    pub candidates: u64,
    pub order: Order,
    /// The last `tail` positions (0, or at least 2) are pairwise non-adjacent, have every
    /// neighbour earlier, and no restriction among them: where every list is held they are
    /// counted together (`held`), elsewhere enumerated like any position.
    pub tail: usize,
}

impl ClusterPlan {
    /// Checks that `query` can be planned over `data` (a process's graph: its label table is
    /// whole) under `semantics`, which must be `embed`, in `order` (GQL or RI: the orders that
    /// read no adjacency, so every process computes the same), and returns it as a query.
    pub fn check(data: &Graph, query: Graph, semantics: Semantics, order: Order) -> Result<Query> {
        if !ORDERS.contains(&order) {
            return Err(Error::Unsupported(format!(
                "the cluster matcher orders queries by gql or ri only, not {}",
                order.name()
            )));
        }
        if semantics != Semantics::Embed {
            return Err(Error::Unsupported(format!(
                "the cluster matcher counts embeddings (--semantics embed) only, not {}",
                semantics.name()
            )));
        }
        if query.is_restricted() {
            return Err(Error::Unsupported("the cluster matcher does not take property tests yet".into()));
        }
        Ok(Query::new(query, data, semantics)?)
    }

    /// Plans `q` (from [`ClusterPlan::check`]) over `data` and the global candidate sets
    /// `cands` (by query vertex, sorted, none empty) in `order`, with symmetry breaking when
    /// `symmetry`, and with a counted tail as `tail` says ([`counted_tail`]).
    pub fn new(data: &Graph, q: &Query, cands: &Candidates, symmetry: bool, order: Order, tail: Tail) -> ClusterPlan {
        let n = q.num_vertices();
        let sizes: Vec<usize> = cands.iter().map(Vec::len).collect();
        let vertices = order.compute(data, q, &mut Sampler::new(data, q, cands, true, GATE_PARTICLES, 0));
        let (vertices, tail) = counted_tail(q, vertices, tail);
        let options = PlanOptions {
            semantics: Semantics::Embed,
            tail: if tail > 0 { Tail::On } else { Tail::Off },
            symmetry: if symmetry { Symmetry::Auto } else { Symmetry::Off },
            ..PlanOptions::default()
        };
        let shaped = Plan::shaped(data, q, options, order, vertices.clone(), tail, &sizes, &Control::unlimited());
        let mut position = vec![usize::MAX; n];
        let mut steps = Vec::with_capacity(n);
        for (i, &u) in vertices.iter().enumerate() {
            let mut back: Vec<Back> = q
                .edges(u)
                .iter()
                .filter(|e| position[e.to as usize] < i)
                .map(|e| Back {
                    from: position[e.to as usize],
                    dir: flip(e.dir, data.is_directed()),
                    edge_label: e.label,
                })
                .collect();
            back.sort_by_key(|b| (b.from, b.dir == Dir::In, b.edge_label));
            position[u as usize] = i;
            let candidates = cands[u as usize].clone();
            let bits = Bitset::from_sorted(data.num_vertices(), &candidates);
            let greater_than = shaped.greater_than[i].clone();
            steps.push(Step { vertex: u, label: q.label(u), back, greater_than, candidates, bits });
        }
        ClusterPlan {
            steps,
            multiplier: shaped.multiplier,
            symmetry: shaped.symmetry.clone(),
            restrictions: shaped.restriction_count(),
            candidates: sizes.iter().map(|&s| s as u64).sum(),
            order,
            tail,
        }
    }

    /// The first position of the counted tail (the number of positions when there is none).
    pub fn tail_start(&self) -> usize {
        self.steps.len() - self.tail
    }

    /// The tail's positions grouped by label: only vertices of one label can take the same
    /// data vertex, so the groups are counted apart and multiplied.
    pub fn tail_groups(&self) -> Vec<Vec<usize>> {
        label_groups(self.tail_start()..self.steps.len(), |t| self.steps[t].label)
    }

    /// Whether every list is read only past its own vertex: each position's backward
    /// neighbours are below the restrictions' bound it reads from, directly (a restriction) or
    /// through a chain of them, as a clique's positions under symmetry breaking are. Then a
    /// vertex's smaller neighbours are never read, and the lists may be held oriented, each
    /// vertex with its larger neighbours only (`replicate`).
    pub fn reads_upward(&self) -> bool {
        // below[s]: the positions whose vertex is smaller than position s's in every match.
        let mut below: Vec<Vec<bool>> = Vec::with_capacity(self.steps.len());
        for step in &self.steps {
            let mut mine = vec![false; self.steps.len()];
            for &p in &step.greater_than {
                mine[p] = true;
                mine.iter_mut().zip(&below[p]).for_each(|(m, &b)| *m |= b);
            }
            below.push(mine);
        }
        self.steps.iter().zip(&below).all(|(step, below)| step.back.iter().all(|b| below[b.from]))
    }
}

/// The order and its counted tail's length (0 for none). `Tail::On`: the order's tail as one
/// host makes it (`tail_order`: pairwise non-adjacent vertices taken from the end, some moved
/// there from earlier). `Tail::Auto`: only vertices with no neighbour after them in the order
/// are moved, so no later vertex loses an intersection (`tail_order_by`). One host decides by
/// sampled estimates; a process holds only part of the lists and cannot sample alike. Moving
/// every vertex cost wordnet's dense_12_9 over 3× its time on the H200 host (2.9 s without a
/// tail, more than 10 s with), while keeping only the tail's part that already ends the order
/// lost 5–20× to the full tail on yeast's sparse_12_3 and sparse_10_6; `Tail::Auto` kept their
/// gains and lost on none of the three (`bench/results/2026-12-02-cluster-tails.md`).
pub fn counted_tail(q: &Query, order: Vec<u32>, tail: Tail) -> (Vec<u32>, usize) {
    match (tail != Tail::Off).then(|| tail_order_by(q, &order, tail == Tail::Auto)).flatten() {
        Some((moved, k)) => (moved, k),
        None => (order, 0),
    }
}

/// The direction of a query edge seen from its other end.
fn flip(d: Dir, directed: bool) -> Dir {
    match (d, directed) {
        (_, false) => Dir::Out,
        (Dir::Out, true) => Dir::In,
        (Dir::In, true) => Dir::Out,
    }
}
