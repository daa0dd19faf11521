//! Matching orders, interchangeable by name: GQL (GraphQL, Sun & Luo §5), RI (Bonnici et al.,
//! Sun & Luo §5), the GSI order (GSI Alg. 2: |C(u)|/deg(u), scaled by edge-label frequency) and
//! `card`, which grows the order by the vertex of fewest estimated partial matches (sampled,
//! `estimate`). Every order keeps the plan connected while it can; a disconnected query
//! continues with the best-scored vertex of a new component.
//!
//! This module holds the orders' names and the query walks they share: the plan records an
//! order (`plan`), so it sits below the plan. Computing an order (`compute`, with CFL's in
//! `cfl`) samples partial matches of plans (`card`, CFL's path estimates), so it sits above
//! `estimate::sampling`.

mod cfl;
mod compute;

use crate::query::Query;

/// A matching order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Fewest candidates first, then the neighbour of the matched part with fewest candidates.
    Gql,
    /// Structure only: most backward neighbours first (RI's three tie-breaks).
    Ri,
    /// GSI: lowest |C(u)| / deg(u) first, scores of neighbours scaled by their edge label's share.
    Gsi,
    /// Fewest candidates first, then the neighbour of the matched part with the fewest
    /// estimated partial matches (sampled over the candidate sets).
    Card,
    /// CFL's core-forest-leaf order over path estimates on the candidate edges (`cfl`), the
    /// order FSIG takes (`--gpu-strategy fsig`).
    Cfl,
}

impl Order {
    pub const NAMES: &'static [&'static str] = &["gql", "ri", "gsi", "card", "cfl"];

    /// Every order.
    pub const ALL: [Order; 5] = [Order::Gql, Order::Ri, Order::Gsi, Order::Card, Order::Cfl];

    /// The orders the planner tries under `--order auto`.
    pub const PLANNED: [Order; 4] = [Order::Gql, Order::Ri, Order::Gsi, Order::Card];

    pub fn from_name(name: &str) -> Option<Order> {
        match name {
            "gql" | "graphql" => Some(Order::Gql),
            "ri" => Some(Order::Ri),
            "gsi" => Some(Order::Gsi),
            "card" => Some(Order::Card),
            "cfl" => Some(Order::Cfl),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Order::Gql => "gql",
            Order::Ri => "ri",
            Order::Gsi => "gsi",
            Order::Card => "card",
            Order::Cfl => "cfl",
        }
    }
}

/// The distinct neighbours of `u` in the query, whatever the edges' directions and labels.
fn neighbours(query: &Query, u: u32) -> Vec<u32> {
    let mut nbrs: Vec<u32> = query.edges(u).iter().map(|e| e.to).collect();
    nbrs.sort_unstable();
    nbrs.dedup();
    nbrs
}

fn place(order: &mut Vec<u32>, placed: &mut [bool], u: u32) {
    order.push(u);
    placed[u as usize] = true;
}

fn unplaced(placed: &[bool]) -> Vec<u32> {
    (0..placed.len() as u32).filter(|&u| !placed[u as usize]).collect()
}

/// Unplaced vertices adjacent to a placed one.
fn frontier(query: &Query, order: &[u32], placed: &[bool]) -> Vec<u32> {
    let mut f: Vec<u32> =
        order.iter().flat_map(|&u| query.edges(u).iter().map(|e| e.to)).filter(|&w| !placed[w as usize]).collect();
    f.sort_unstable();
    f.dedup();
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::sampling::Sampler;
    use crate::graph::Graph;
    use crate::graph::GraphBuilder;
    use crate::query::Semantics;

    /// A path 0-1-2-3 plus an isolated vertex 4 (the data graph is the query), with candidate
    /// sets of sizes 5, 1, 3, 2, 9.
    pub(super) fn path_and_isolated() -> (Graph, Query, Vec<Vec<u32>>) {
        let mut b = GraphBuilder::new(5, false);
        for (u, v) in [(0, 1), (1, 2), (2, 3)] {
            b.add_edge(u, v, 0);
        }
        let g = b.build().0;
        let q = Query::new(g.clone(), &g, Semantics::Embed).unwrap();
        let cands = [5u32, 1, 3, 2, 9].iter().map(|&k| (0..k).collect()).collect();
        (g, q, cands)
    }

    #[test]
    fn orders_are_connected_permutations() {
        let (g, q, cands) = path_and_isolated();
        let mut s = Sampler::new(&g, &q, &cands, true, 8, 1);
        // GQL: fewest candidates first (1), then the smallest frontier vertex: 2, 3, 0; then 4.
        assert_eq!(Order::Gql.compute(&g, &q, &mut s), vec![1, 2, 3, 0, 4]);
        // RI: most placed neighbours, then most other unplaced neighbours (2 over 0), then id.
        assert_eq!(Order::Ri.compute(&g, &q, &mut s), vec![1, 2, 0, 3, 4]);
        // Scores |C|/deg: 5, 0.5, 1.5, 2, 9.
        assert_eq!(Order::Gsi.compute(&g, &q, &mut s), vec![1, 2, 3, 0, 4]);
        let mut card = Order::Card.compute(&g, &q, &mut s);
        card.sort_unstable();
        assert_eq!(card, vec![0, 1, 2, 3, 4]);
    }
}
