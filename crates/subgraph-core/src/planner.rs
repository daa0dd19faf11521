//! The planner the CPU engine, the GPU engine and `--device auto` share: from the candidate
//! sets, the plan of least estimated work among the matching orders (GQL, RI, GSI, `card`),
//! each with and without a counted tail of pairwise non-adjacent last vertices, with the
//! symmetry-breaking restrictions of its order. Costs come from sampling (`estimate`); queries
//! whose default plan samples as cheap skip the comparison, so the planner stays a small
//! fraction of every query.

use crate::estimate::{Estimate, Sampler};
use crate::filter::Candidates;
use crate::graph::Graph;
use crate::order::Order;
use crate::plan::{Plan, PlanOptions, Tail};
use crate::query::Query;
use crate::tail::{MAX_GROUP, MAX_TAIL};
use std::time::Instant;

/// Particles of the first, quick estimate of the default plan (the gate).
pub const GATE_PARTICLES: usize = 16;
/// Fewest particles per level worth comparing plans with; a query whose comparison budget
/// affords fewer keeps the default plan.
pub const MIN_PARTICLES: usize = 24;
/// Most particles per level when plans are compared.
pub const FULL_PARTICLES: usize = 256;
/// Estimated work (units of `estimate`) under which the default plan is kept without a
/// comparison: about a tenth of a millisecond of enumeration.
pub const SMALL_COST: f64 = 2e4;
/// Nanoseconds one enumeration thread spends per unit of estimated work (measured on the
/// Sun & Luo sets; see bench/results).
pub const NS_PER_UNIT: f64 = 5.0;
/// Share of the default plan's predicted enumeration time that comparing plans may take.
pub const PLAN_SHARE: f64 = 0.1;
/// Plan estimates a comparison costs, in units of one estimate of the default plan: eight
/// plans (four orders, with and without a tail) and growing the `card` order.
const COMPARISON_ESTIMATES: f64 = 11.0;

/// One plan the planner estimated.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Considered {
    pub order: &'static str,
    pub vertices: Vec<u32>,
    pub tail: usize,
    pub estimate: Estimate,
}

impl Plan {
    /// Filters with `options.filter` and plans (see [`choose`]).
    pub fn new(data: &Graph, query: &Query, options: PlanOptions) -> Plan {
        let t = Instant::now();
        let cands = options.filter.run(data, query, options.semantics);
        let filter_ms = t.elapsed().as_secs_f64() * 1e3;
        choose(data, query, options, cands, filter_ms).0
    }
}

/// The plan the planner starts from, estimating nothing: the default order (`options.order`,
/// else GQL), with a counted tail only under `Tail::On`.
pub fn default_plan(data: &Graph, query: &Query, options: PlanOptions, cands: Candidates, filter_ms: f64) -> Plan {
    let t = Instant::now();
    let sizes: Vec<usize> = cands.iter().map(Vec::len).collect();
    let order = options.order.unwrap_or(Order::Gql);
    let (order, vertices, tail) = if sizes.contains(&0) {
        (order, (0..query.num_vertices() as u32).collect(), 0)
    } else {
        let mut sampler = Sampler::new(data, query, &cands, options.semantics.injective(), GATE_PARTICLES, SEED);
        let vertices = order.compute(data, query, &mut sampler);
        variants(query, &options, order, vertices).swap_remove(0)
    };
    let mut plan = Plan::shaped(data, query, options, order, vertices, tail, &sizes);
    plan.filter_ms = filter_ms;
    plan.order_ms = t.elapsed().as_secs_f64() * 1e3;
    plan.with_candidates(cands)
}

/// Whether the options leave the planner a choice (of order, or of the tail).
pub fn has_alternatives(options: &PlanOptions) -> bool {
    options.order.is_none() || (options.tail == Tail::Auto && options.allows_tail())
}

/// The particles per level a comparison of plans may use, given a gate estimate of the
/// default plan (its cost, and the time it took per particle), on `threads` enumeration
/// threads: None when the query is too cheap for the comparison to pay.
pub fn comparison_particles(gate: &Estimate, ms_per_particle: f64, threads: usize) -> Option<usize> {
    let predicted_ms = gate.cost * NS_PER_UNIT * 1e-6 / threads.max(1) as f64;
    let affordable = PLAN_SHARE * predicted_ms / (ms_per_particle * COMPARISON_ESTIMATES);
    (gate.cost >= SMALL_COST && affordable >= MIN_PARTICLES as f64).then(|| (affordable as usize).min(FULL_PARTICLES))
}

/// The plan over candidate sets `cands` (C(u) sorted by id, per query vertex, each a superset
/// of u's true matches; `filter_ms` is reported as the filter's time), and every plan that was
/// estimated on the way: the default plan ([`default_plan`]) is estimated quickly first (over
/// the data graph) and kept when a comparison would not pay, else as [`compare`].
pub fn choose(
    data: &Graph,
    query: &Query,
    options: PlanOptions,
    cands: Candidates,
    filter_ms: f64,
) -> (Plan, Vec<Considered>) {
    let t = Instant::now();
    let mut plan = default_plan(data, query, options, cands, filter_ms);
    if plan.empty || !has_alternatives(&options) {
        return (plan, Vec::new());
    }
    let cands = plan.take_candidates();
    let mut sampler = Sampler::new(data, query, &cands, options.semantics.injective(), GATE_PARTICLES, SEED);
    let g = Instant::now();
    let gate = sampler.estimate(&plan);
    let per_particle = g.elapsed().as_secs_f64() * 1e3 / GATE_PARTICLES as f64;
    match comparison_particles(&gate, per_particle, rayon::current_num_threads()) {
        Some(particles) => compare(data, query, options, cands, filter_ms, particles),
        None => {
            let considered = vec![Considered::of(&plan, gate.clone())];
            plan.estimate = Some(gate);
            plan.order_ms = t.elapsed().as_secs_f64() * 1e3;
            (plan.with_candidates(cands), considered)
        }
    }
}

/// Seed of the planner's sampling: plans are the same from run to run.
const SEED: u64 = 0x5eed_0f91_a4c3_7b2d;

impl Considered {
    /// The plan `plan` as estimated.
    pub fn of(plan: &Plan, estimate: Estimate) -> Considered {
        Considered { order: plan.order.name(), vertices: plan.vertices.clone(), tail: plan.tail, estimate }
    }
}

/// The plan of least estimated work, sampled with `particles` particles per level: with
/// `options.order` set only that order is tried; with a tail allowed and `Tail::Auto`, each
/// order with and without its tail. Every estimated plan is returned too.
pub fn compare(
    data: &Graph,
    query: &Query,
    options: PlanOptions,
    cands: Candidates,
    filter_ms: f64,
    particles: usize,
) -> (Plan, Vec<Considered>) {
    let t = Instant::now();
    let sizes: Vec<usize> = cands.iter().map(Vec::len).collect();
    let shape = |order: Order, vertices: &[u32], tail: usize| {
        Plan::shaped(data, query, options, order, vertices.to_vec(), tail, &sizes)
    };
    let finish = |mut plan: Plan, estimate: Option<Estimate>, cands: Candidates| {
        plan.filter_ms = filter_ms;
        plan.order_ms = t.elapsed().as_secs_f64() * 1e3;
        plan.estimate = estimate;
        plan.with_candidates(cands)
    };
    let default_order = options.order.unwrap_or(Order::Gql);
    if sizes.contains(&0) {
        let vertices: Vec<u32> = (0..query.num_vertices() as u32).collect();
        return (finish(shape(default_order, &vertices, 0), None, cands), Vec::new());
    }
    let mut sampler = Sampler::new(data, query, &cands, options.semantics.injective(), particles, SEED);
    let orders = match options.order {
        Some(o) => vec![o],
        None => Order::ALL.to_vec(),
    };
    let mut considered: Vec<Considered> = Vec::new();
    let mut best: Option<(Plan, Estimate)> = None;
    for order in orders {
        let vertices = order.compute(data, query, &mut sampler);
        for (order, vertices, tail) in variants(query, &options, order, vertices) {
            if considered.iter().any(|c| c.vertices == vertices && c.tail == tail) {
                continue;
            }
            let plan = shape(order, &vertices, tail);
            let estimate = sampler.estimate(&plan);
            considered.push(Considered::of(&plan, estimate.clone()));
            if !best.as_ref().is_some_and(|(_, b)| estimate.cost >= b.cost) {
                best = Some((plan, estimate));
            }
        }
    }
    let (plan, estimate) = best.expect("at least one plan");
    (finish(plan, Some(estimate), cands), considered)
}

/// The plans an order gives: without a counted tail first (the default plan: on small
/// queries enumerating the last vertices costs less than counting them together), then with
/// its tail when one is allowed and exists; only the latter under `Tail::On`.
fn variants(query: &Query, options: &PlanOptions, order: Order, vertices: Vec<u32>) -> Vec<(Order, Vec<u32>, usize)> {
    let with_tail = options.allows_tail().then(|| tail_order(query, &vertices)).flatten();
    match (with_tail, options.tail) {
        (Some((t, k)), Tail::On) => vec![(order, t, k)],
        (Some((t, k)), _) => vec![(order, vertices, 0), (order, t, k)],
        (None, _) => vec![(order, vertices, 0)],
    }
}

/// The order with a counted tail moved to its end: query vertices taken from the end of
/// `order` while they are pairwise non-adjacent, at most [`MAX_GROUP`] per label and
/// [`MAX_TAIL`] in all, and taking them out leaves every other vertex that had an earlier
/// neighbour with one (no new Cartesian products). None when fewer than two qualify.
pub fn tail_order(query: &Query, order: &[u32]) -> Option<(Vec<u32>, usize)> {
    let n = order.len();
    let mut position = vec![0; query.num_vertices()];
    order.iter().enumerate().for_each(|(i, &u)| position[u as usize] = i);
    // Per position, the positions of its earlier neighbours.
    let earlier: Vec<Vec<usize>> = (0..n)
        .map(|i| query.edges(order[i]).iter().map(|e| position[e.to as usize]).filter(|&p| p < i).collect())
        .collect();
    let mut kept = vec![true; n];
    let mut tail: Vec<usize> = Vec::new();
    for i in (1..n).rev() {
        let u = order[i];
        if tail.len() == MAX_TAIL {
            break;
        }
        if query.edges(u).iter().any(|e| !kept[position[e.to as usize]])
            || tail.iter().filter(|&&t| query.label(order[t]) == query.label(u)).count() == MAX_GROUP
        {
            continue;
        }
        kept[i] = false;
        // Every kept position that had an earlier neighbour still has a kept one.
        let connected = (0..n).all(|j| !kept[j] || earlier[j].is_empty() || earlier[j].iter().any(|&p| kept[p]));
        if connected {
            tail.push(i);
        } else {
            kept[i] = true;
        }
    }
    if tail.len() < 2 {
        return None;
    }
    let mut out: Vec<u32> = (0..n).filter(|&j| kept[j]).map(|j| order[j]).collect();
    out.extend(tail.iter().rev().map(|&t| order[t]));
    Some((out, tail.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::query::Semantics;

    fn query(n: usize, labels: Vec<u32>, edges: &[(u32, u32)]) -> Query {
        let g = GraphBuilder::from_parts(labels, edges.iter().map(|&(a, b)| (a, b, 0)).collect(), false).build().0;
        let data = GraphBuilder::from_parts(vec![0; n.max(8)], Vec::new(), false).build().0;
        Query::new(g, &data, Semantics::Embed).unwrap()
    }

    #[test]
    fn tails_are_independent_and_keep_the_order_connected() {
        // A path 0-1-2-3-4-5-6-7 in a scrambled connected order.
        let path: Vec<(u32, u32)> = (0..7).map(|i| (i, i + 1)).collect();
        let q = query(8, vec![0; 8], &path);
        let (order, k) = tail_order(&q, &[3, 2, 4, 1, 5, 6, 0, 7]).unwrap();
        assert_eq!((order.as_slice(), k), ([3, 2, 4, 1, 5, 6, 0, 7].as_slice(), 2));
        // A star: all leaves (up to MAX_GROUP of one label) go to the tail.
        let star: Vec<(u32, u32)> = (1..8).map(|i| (0, i)).collect();
        let q = query(8, vec![0; 8], &star);
        let (order, k) = tail_order(&q, &[0, 1, 2, 3, 4, 5, 6, 7]).unwrap();
        assert_eq!(k, MAX_GROUP);
        assert_eq!(order, vec![0, 1, 2, 3, 4, 5, 6, 7]);
        // A triangle has no two non-adjacent vertices.
        let q = query(3, vec![0; 3], &[(0, 1), (1, 2), (0, 2)]);
        assert!(tail_order(&q, &[0, 1, 2]).is_none());
        // A leaf in the middle of the order moves to the end.
        let q = query(4, vec![0, 1, 2, 3], &[(0, 1), (1, 2), (1, 3), (2, 3)]);
        assert_eq!(tail_order(&q, &[1, 0, 2, 3]), Some((vec![1, 2, 0, 3], 2)));
    }
}
