//! [`Order::compute`]: the query vertices in matching order, by each order's rule. GQL, RI and
//! GSI walk the query greedily here; `card` grows by the sampler's estimates
//! ([`Sampler::card_order`]) and CFL by its path estimates (`cfl`).

use super::{cfl, frontier, neighbours, place, unplaced, Order};
use crate::estimate::sampling::Sampler;
use crate::graph::Graph;
use crate::query::Query;

impl Order {
    /// The query vertices in matching order, over the sampler's candidate sets.
    pub fn compute(self, data: &Graph, query: &Query, sampler: &mut Sampler) -> Vec<u32> {
        let sizes: Vec<usize> = sampler.candidates().iter().map(Vec::len).collect();
        let n = query.num_vertices();
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        match self {
            Order::Gql => {
                let size = |u: u32| sizes[u as usize];
                while order.len() < n {
                    let frontier = frontier(query, &order, &placed);
                    let pool = if frontier.is_empty() { unplaced(&placed) } else { frontier };
                    let u = *pool.iter().min_by_key(|&&u| (size(u), u)).expect("non-empty");
                    place(&mut order, &mut placed, u);
                }
            }
            Order::Ri => {
                while order.len() < n {
                    let frontier = frontier(query, &order, &placed);
                    let u = if frontier.is_empty() {
                        *unplaced(&placed)
                            .iter()
                            .max_by_key(|&&u| (query.degree(u), std::cmp::Reverse(u)))
                            .expect("non-empty")
                    } else {
                        *frontier
                            .iter()
                            .max_by_key(|&&u| (ri_key(query, &placed, u), std::cmp::Reverse(u)))
                            .expect("non-empty")
                    };
                    place(&mut order, &mut placed, u);
                }
            }
            Order::Gsi => {
                let total = data.num_edges().max(1) as f64;
                let mut score: Vec<f64> =
                    (0..n as u32).map(|u| sizes[u as usize] as f64 / query.degree(u).max(1) as f64).collect();
                let best = |pool: &[u32], score: &[f64]| {
                    *pool
                        .iter()
                        .min_by(|&&a, &&b| score[a as usize].total_cmp(&score[b as usize]).then(a.cmp(&b)))
                        .expect("non-empty")
                };
                while order.len() < n {
                    let frontier = frontier(query, &order, &placed);
                    let pool = if frontier.is_empty() { unplaced(&placed) } else { frontier };
                    let u = best(&pool, &score);
                    place(&mut order, &mut placed, u);
                    for e in query.edges(u) {
                        let share = data.edge_label_count(e.label) as f64 / total;
                        score[e.to as usize] *= share;
                    }
                }
            }
            Order::Card => return sampler.card_order(),
            Order::Cfl => return cfl::order(query, sampler),
        }
        order
    }
}

/// RI's key: (placed neighbours, unplaced neighbours adjacent to the placed part, other
/// unplaced neighbours).
fn ri_key(query: &Query, placed: &[bool], u: u32) -> (usize, usize, usize) {
    let nbrs = neighbours(query, u);
    let back = nbrs.iter().filter(|&&w| placed[w as usize]).count();
    let touching =
        nbrs.iter().filter(|&&w| !placed[w as usize] && query.edges(w).iter().any(|e| placed[e.to as usize])).count();
    (back, touching, nbrs.len() - back - touching)
}
