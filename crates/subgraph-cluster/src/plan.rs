//! The plan every process makes alike: subgraph-core's planner orders the query by GQL's rule
//! (Sun & Luo, SIGMOD 2020) over candidate sets from the label table alone, which every process
//! holds whole, so the order and the symmetry-breaking restrictions (`Plan::shaped`) are the
//! same everywhere; each position then lists the earlier positions whose adjacency lists
//! extend it, the relations BiGJoin intersects (Ammar et al., VLDB 2018 §3).

use crate::error::{Error, Result};
use std::time::Instant;
use subgraph_core::estimate::sampling::Sampler;
use subgraph_core::order::Order;
use subgraph_core::plan::{Plan, PlanOptions, Tail};
use subgraph_core::planner::GATE_PARTICLES;
use subgraph_core::sink::Control;
use subgraph_core::{Dir, Graph, Query, Semantics};

/// The orders every process computes alike from the query and the label table.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub vertex: u32,
    pub label: u32,
    /// Query degree: a root's data vertex needs at least as many neighbours (undirected).
    pub degree: u32,
    /// Sorted by position; empty for the first vertex of a connected component.
    pub back: Vec<Back>,
    /// Earlier positions whose data vertex must be smaller than this one's.
    pub greater_than: Vec<usize>,
}

/// The distributed plan of one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterPlan {
    pub steps: Vec<Step>,
    /// Embeddings each counted match stands for (symmetry breaking).
    pub multiplier: u128,
    pub restrictions: usize,
    /// Candidates by label, summed over the query vertices.
    pub candidates: u64,
    pub order: Order,
}

impl ClusterPlan {
    /// Plans `query` over `data` (a process's graph: its label table is whole) under
    /// `semantics`, which must be `embed`, in `order` (GQL or RI: the orders that read no
    /// adjacency, so every process computes the same); symmetry breaking when `symmetry`.
    /// Returns the plan and the milliseconds it took.
    pub fn new(
        data: &Graph,
        query: Graph,
        semantics: Semantics,
        symmetry: bool,
        order: Order,
    ) -> Result<(ClusterPlan, f64)> {
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
        let t = Instant::now();
        let q = Query::new(query, data, semantics)?;
        let n = q.num_vertices();
        let cands: Vec<Vec<u32>> = (0..n as u32).map(|u| data.vertices_with_label(q.label(u)).to_vec()).collect();
        let sizes: Vec<usize> = cands.iter().map(Vec::len).collect();
        let vertices = order.compute(data, &q, &mut Sampler::new(data, &q, &cands, true, GATE_PARTICLES, 0));
        let options = PlanOptions {
            semantics,
            tail: Tail::Off,
            symmetry: if symmetry { subgraph_core::plan::Symmetry::Auto } else { subgraph_core::plan::Symmetry::Off },
            ..PlanOptions::default()
        };
        let shaped = Plan::shaped(data, &q, options, order, vertices.clone(), 0, &sizes, &Control::unlimited());
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
            let greater_than = shaped.greater_than[i].clone();
            steps.push(Step { vertex: u, label: q.label(u), degree: q.degree(u) as u32, back, greater_than });
        }
        let plan = ClusterPlan {
            steps,
            multiplier: shaped.multiplier,
            restrictions: shaped.restriction_count(),
            candidates: sizes.iter().map(|&s| s as u64).sum(),
            order,
        };
        Ok((plan, t.elapsed().as_secs_f64() * 1e3))
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
