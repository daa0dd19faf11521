//! The plan both engines run: candidates from a filter, a matching order, and for every query
//! vertex the links to its already-matched neighbours (and, for induced matching, its
//! already-matched non-neighbours). Sun & Luo §3's "filter, order, enumerate" split.

use crate::filter::{Candidates, Filter};
use crate::graph::{Dir, Graph};
use crate::order::Order;
use crate::query::{Query, Semantics};
use std::time::Instant;

/// A query edge between position `from` (matched earlier) and a later position: the data edge
/// goes from `from`'s match in direction `dir` to the candidate, with data pair id `pair`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub from: usize,
    pub dir: Dir,
    pub edge_label: u32,
    pub pair: u32,
}

/// Induced matching only: no data edge may go from `from`'s match in direction `dir` to the
/// candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonEdge {
    pub from: usize,
    pub dir: Dir,
}

/// Which parts make a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    pub semantics: Semantics,
    pub filter: Filter,
    pub order: Order,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions { semantics: Semantics::Embed, filter: Filter::Gql, order: Order::Gql }
    }
}

/// Filtered, ordered query. Positions index the matching order.
#[derive(Debug, Clone)]
pub struct Plan {
    pub options: PlanOptions,
    /// Query vertex at each position.
    pub vertices: Vec<u32>,
    /// Candidates of the query vertex at each position, sorted by id; empty lists in a plan
    /// made by [`Plan::from_sizes`], whose sets stay where the filter made them.
    pub candidates: Candidates,
    /// |C| of the query vertex at each position.
    pub sizes: Vec<usize>,
    /// Links from earlier positions, per position (empty for the first vertex of a component).
    pub backward: Vec<Vec<Link>>,
    /// Induced matching: non-edges to earlier positions, per position.
    pub non_edges: Vec<Vec<NonEdge>>,
    /// True when some candidate set is empty or some query edge's labels occur nowhere:
    /// no match exists.
    pub empty: bool,
    pub filter_ms: f64,
    pub order_ms: f64,
}

fn flip(d: Dir, directed: bool) -> Dir {
    match (d, directed) {
        (_, false) => Dir::Out,
        (Dir::Out, true) => Dir::In,
        (Dir::In, true) => Dir::Out,
    }
}

impl Plan {
    pub fn new(data: &Graph, query: &Query, options: PlanOptions) -> Plan {
        let t = Instant::now();
        let by_vertex = options.filter.run(data, query, options.semantics);
        let filter_ms = t.elapsed().as_secs_f64() * 1e3;
        Plan::from_candidates(data, query, options, by_vertex, filter_ms)
    }

    /// The plan over candidates filtered elsewhere (`by_vertex[u]`: C(u) sorted by id, a
    /// superset of u's true matches); `options.filter` is not run and `filter_ms` is reported
    /// as the filter's time.
    pub fn from_candidates(
        data: &Graph,
        query: &Query,
        options: PlanOptions,
        mut by_vertex: Candidates,
        filter_ms: f64,
    ) -> Plan {
        let sizes: Vec<usize> = by_vertex.iter().map(Vec::len).collect();
        let mut plan = Plan::from_sizes(data, query, options, &sizes, filter_ms);
        plan.candidates = plan.vertices.iter().map(|&u| std::mem::take(&mut by_vertex[u as usize])).collect();
        plan
    }

    /// The plan over candidate sets that stay where they were filtered (on the GPU), of which
    /// only the sizes are here (`sizes_by_vertex[u]` = |C(u)|): order, links and non-edges as
    /// [`Plan::from_candidates`] makes them, `candidates` left empty (so not a plan for the CPU
    /// engine, which enumerates from the lists).
    pub fn from_sizes(
        data: &Graph,
        query: &Query,
        options: PlanOptions,
        sizes_by_vertex: &[usize],
        filter_ms: f64,
    ) -> Plan {
        let t = Instant::now();
        let vertices = options.order.compute(data, query, sizes_by_vertex);
        let order_ms = t.elapsed().as_secs_f64() * 1e3;
        let n = vertices.len();
        let mut position = vec![0; n];
        vertices.iter().enumerate().for_each(|(i, &u)| position[u as usize] = i);
        let mut empty = sizes_by_vertex.contains(&0);
        let mut backward = vec![Vec::new(); n];
        let mut non_edges = vec![Vec::new(); n];
        let directed = data.is_directed();
        for (i, &u) in vertices.iter().enumerate() {
            for e in query.edges(u) {
                let from = position[e.to as usize];
                if from >= i {
                    continue;
                }
                match data.pair_id(e.label, query.label(u)) {
                    Some(pair) => {
                        backward[i].push(Link { from, dir: flip(e.dir, directed), edge_label: e.label, pair })
                    }
                    None => empty = true,
                }
            }
            backward[i].sort_by_key(|l: &Link| l.from);
            if options.semantics == Semantics::Induced {
                for (from, &w) in vertices[..i].iter().enumerate() {
                    let dirs: &[Dir] = if directed { &[Dir::Out, Dir::In] } else { &[Dir::Out] };
                    for &dir in dirs {
                        // `dir` is seen from w: Out means w→u must be absent unless the query has it.
                        if query.edge(w, u, dir).is_none() {
                            non_edges[i].push(NonEdge { from, dir });
                        }
                    }
                }
            }
        }
        let sizes = vertices.iter().map(|&u| sizes_by_vertex[u as usize]).collect();
        let candidates = vec![Vec::new(); n];
        Plan { options, vertices, candidates, sizes, backward, non_edges, empty, filter_ms, order_ms }
    }

    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// Total number of candidates over all query vertices.
    pub fn candidate_count(&self) -> u64 {
        self.sizes.iter().map(|&c| c as u64).sum()
    }
}
