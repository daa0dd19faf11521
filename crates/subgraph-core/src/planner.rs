//! The planner the CPU engine, the GPU engine and `--device auto` share: from the candidate
//! sets, the plan of least estimated work among the matching orders (GQL, RI, GSI, `card`),
//! each with and without a counted tail of pairwise non-adjacent last vertices, with the
//! symmetry-breaking restrictions of its order. Costs come from sampling (`estimate`); queries
//! whose default plan samples as cheap skip the comparison, so the planner stays a small
//! fraction of every query.

use crate::bitset::Bitset;
use crate::estimate::sampling::{candidate_bits, Sampler};
use crate::estimate::Estimate;
use crate::filter::Candidates;
use crate::graph::Graph;
use crate::order::Order;
pub use crate::plan::Device;
use crate::plan::{Plan, PlanOptions, Tail};
use crate::query::Query;
use crate::sink::Control;
use crate::tail::{MAX_GROUP, MAX_TAIL};
use rayon::prelude::*;
use std::time::Instant;

mod device;
pub use device::{
    choose_device, device_for_graph, device_for_limit, gpu_break_even, Basis, DeviceChoice, DeviceCosts,
    GPU_GRAPH_VERTICES, H200_COSTS, NS_PER_UNIT,
};

/// Particles of the first, quick estimate of the default plan (the gate).
pub const GATE_PARTICLES: usize = 16;
/// When the gate's estimate is below the space's bound by more than this factor, it is
/// sampled again with [`GATE_RECHECK_PARTICLES`] (a search whose work hides in a few subtrees
/// looks cheap to few particles: G3's dense_12_3 sampled 26,000 units with 16 particles and
/// 2·10^8 with 256).
pub const GATE_DOUBT: f64 = 100.0;
/// Particles of the gate's second look: independent estimates of [`GATE_PARTICLES`] each, on
/// the pool's threads, pooled ([`Estimate::pooled`]).
pub const GATE_RECHECK_PARTICLES: usize = 128;
/// Estimated work (priced for the GPU) from which plans for the GPU are compared, with at
/// least [`GPU_PARTICLES`] particles: about 16 ms of the H200's join, where a comparison takes
/// 2–6 ms of the host's cores. Below it the planning cost more than it saved on G3's 8-vertex
/// classes (1–1.7 ms of planning for 1.5 ms joins, H100, 2026-11-24).
pub const GPU_COMPARE_COST: f64 = 2e8;
pub const GPU_PARTICLES: usize = 64;
/// Gate estimates (priced for the GPU) from which a GPU query's default plan is sampled
/// again with [`GATE_RECHECK_PARTICLES`] before the planner decides whether to compare.
pub const GPU_RECHECK_COST: f64 = 1e6;
/// Fewest particles per level worth comparing plans with; a query whose comparison budget
/// affords fewer keeps the default plan.
pub const MIN_PARTICLES: usize = 24;
/// Most particles per level when plans are compared.
pub const FULL_PARTICLES: usize = 256;
/// Estimated work (units of `estimate`) under which the default plan is kept without a
/// comparison: about a tenth of a millisecond of enumeration.
pub const SMALL_COST: f64 = 2e4;

/// The milliseconds of enumeration `cost` units of work are predicted to take on `threads`
/// threads ([`NS_PER_UNIT`]).
pub fn predicted_ms(cost: f64, threads: usize) -> f64 {
    cost * NS_PER_UNIT * 1e-6 / threads.max(1) as f64
}

/// The units of work that `ms` milliseconds of enumeration on `threads` threads do:
/// [`predicted_ms`]'s inverse.
pub fn units_in_ms(ms: f64, threads: usize) -> f64 {
    ms * threads.max(1) as f64 / (NS_PER_UNIT * 1e-6)
}

/// A prediction overrun this many times is refuted: a counting query whose comparison does
/// not pay runs its default plan for this many times its predicted time (at least
/// `pipeline::TRIAL`) before the prediction is given up (`Prepared::finish`'s watch), and
/// probes that find neither plan faster go on for as long where the default plan's price is a
/// floor (`pipeline::probe_prefers`'s `escalate`).
pub const OVERRUN: f64 = 4.0;
/// Share of the default plan's predicted enumeration time that comparing plans may take.
pub const PLAN_SHARE: f64 = 0.1;
/// Plan estimates a comparison costs, in units of one estimate of the default plan: eight
/// plans (four orders, with and without a tail) and growing the `card` order.
const COMPARISON_ESTIMATES: f64 = 11.0;
/// A comparison's time over what its estimates' reads model at the gate's rate: it samples
/// the data graph through candidate bitsets where the gate samples the candidate space, and
/// it computes four orders and shapes eight plans besides. Measured on yeast's heavy queries
/// (23 comparisons, one thread, the 2-core VM, 2026-11-29): 1.4–7.8 times, median 2.7.
const COMPARISON_OVERHEAD: f64 = 3.0;
/// Particles per level of a comparison's first stage ([`compare_staged`]).
pub const SCOUT_PARTICLES: usize = MIN_PARTICLES;

/// One plan the planner estimated.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Considered {
    pub order: &'static str,
    pub vertices: Vec<u32>,
    pub tail: usize,
    pub estimate: Estimate,
}

impl Plan {
    /// Filters with `options.filter` and plans (see [`choose`]); `control` cuts both short.
    pub fn new(data: &Graph, query: &Query, options: PlanOptions, control: &Control) -> Plan {
        let t = Instant::now();
        let cands = options.filter.run(data, query, options.semantics, control);
        let filter_ms = t.elapsed().as_secs_f64() * 1e3;
        choose(data, query, options, cands, filter_ms, control).0
    }
}

/// The plan the planner starts from, estimating nothing: the default order
/// (`PlanOptions::default_order`), with a counted tail only under `Tail::On`.
/// `control` cuts the search for its symmetry short (`Plan::shaped`).
pub fn default_plan(
    data: &Graph,
    query: &Query,
    options: PlanOptions,
    cands: Candidates,
    filter_ms: f64,
    control: &Control,
) -> Plan {
    ordered_plan(data, query, options, options.default_order(), cands, filter_ms, control)
}

/// [`default_plan`] with `order` in place of the default order.
pub fn ordered_plan(
    data: &Graph,
    query: &Query,
    options: PlanOptions,
    order: Order,
    cands: Candidates,
    filter_ms: f64,
    control: &Control,
) -> Plan {
    let t = Instant::now();
    let sizes: Vec<usize> = cands.iter().map(Vec::len).collect();
    let (order, vertices, tail) = if sizes.contains(&0) {
        (order, (0..query.num_vertices() as u32).collect(), 0)
    } else {
        let mut sampler = Sampler::new(data, query, &cands, options.semantics.injective(), GATE_PARTICLES, SEED);
        let vertices = order.compute(data, query, &mut sampler);
        variants(query, &options, order, vertices).swap_remove(0)
    };
    let mut plan = Plan::shaped(data, query, options, order, vertices, tail, &sizes, control);
    plan.filter_ms = filter_ms;
    plan.order_ms = t.elapsed().as_secs_f64() * 1e3;
    plan.with_candidates(cands)
}

/// Whether the options leave the planner a choice (of order, or of the tail). Not under a
/// limit, except [`compares_under_limit`]: samples price the whole search, while the work to
/// the first N matches depends on where in it the matches lie, which they do not show
/// (measured on yeast dense_32: plans sampled cheapest ran into the 10 s timeout before 10^5
/// matches, where the default order, which places the fewest candidates first, took 18 ms).
pub fn has_alternatives(options: &PlanOptions) -> bool {
    options.limit.is_none() && (options.order.is_none() || (options.tail == Tail::Auto && options.allows_tail()))
}

/// Whether a limited query on the CPU may choose its order among [`LIMIT_ORDERS`] (the
/// pipeline asks only where `--filter auto` defers its refinement: the candidate sets are
/// large, and the query long enough for the comparison to pay). The CPU's depth-first search
/// stops at the limit, which the price scales to (`PlanOptions::price`); the GPU's first
/// chunks are whole levels.
pub fn compares_under_limit(options: &PlanOptions) -> bool {
    options.limit.is_some() && options.order.is_none() && options.device == Device::Cpu
}

/// The orders compared under a limit: the candidates-first order (GQL, the CPU's default) and
/// the structure-first one (RI, which ignores the candidates). The work to the first N
/// matches depends on where in the search they lie, which samples do not show; the price of
/// the whole search, scaled by the limit, still told the two apart on the Sun & Luo sets
/// (limit 10^5, 50 queries per class, one thread, 2026-11-27): at the class medians it came
/// within 1.6x of the better of the two in every class, where either alone fell up to 4x behind
/// in some (bench/results/2026-11-27-limit-orders.md). GSI and `card` are left out: with
/// them the choice fell further behind on wordnet (dense_20's median 167 against 138 ms),
/// and earlier, sampled alone, they chose plans that ran into the 10 s timeout on yeast
/// dense_32 where GQL took 18 ms.
pub const LIMIT_ORDERS: [Order; 2] = [Order::Gql, Order::Ri];

/// The particles per level a comparison of plans may use, given the default plan's work as
/// its gate estimate prices it (`PlanOptions::price`) and the time that estimate took per
/// particle, on `threads` enumeration threads: None when the query is too cheap for the
/// comparison to pay. Under a limit every query from [`SMALL_COST`] is compared, with at
/// least [`MIN_PARTICLES`]: the gate's few particles rarely reach a match there, and its
/// price errs low (wordnet's dense_20_5 sampled 4.6·10^4 units for a 70 ms search), while
/// comparing two orders costs little.
pub fn comparison_particles(options: &PlanOptions, cost: f64, ms_per_particle: f64, threads: usize) -> Option<usize> {
    let affordable = PLAN_SHARE * predicted_ms(cost, threads) / comparison_ms(options, 1, ms_per_particle);
    match options.limit {
        _ if cost < SMALL_COST => None,
        None => (affordable >= MIN_PARTICLES as f64).then(|| (affordable as usize).min(FULL_PARTICLES)),
        Some(_) => Some((affordable as usize).clamp(MIN_PARTICLES, FULL_PARTICLES)),
    }
}

/// Nanoseconds per list element an estimate reads (`Estimate::read`, which also counts
/// `estimate::CALL_READS` per local set): the sampling's own time, from a count rather than
/// the clock, so that the particles a comparison may spend, and with them the plan chosen, are
/// the same from run to run and host to host (on the H200 host, the first touches of a
/// memory-mapped graph made a timed budget pick a plan 7x slower,
/// bench/results/2026-11-26-final-check.md). Fitted with `CALL_READS` (see there): the modelled
/// time is within 0.6–1.9x of the measured one for 80 % of the estimates.
pub const SAMPLING_NS_PER_READ: f64 = 1.0;

/// Milliseconds per particle of estimates that read `read` elements with `particles` particles
/// in all.
pub fn ms_per_particle(read: f64, particles: usize) -> f64 {
    read * SAMPLING_NS_PER_READ * 1e-6 / particles.max(1) as f64
}

/// The time in milliseconds a comparison with `particles` particles per level takes, given
/// the gate's time per particle: one estimate per order under a limit, else
/// `COMPARISON_ESTIMATES`.
pub fn comparison_ms(options: &PlanOptions, particles: usize, ms_per_particle: f64) -> f64 {
    let estimates = if options.limit.is_some() { LIMIT_ORDERS.len() as f64 } else { COMPARISON_ESTIMATES };
    particles as f64 * ms_per_particle * estimates * COMPARISON_OVERHEAD
}

/// [`compare`] whose cost follows the best plan it can find, not the default plan. First the
/// default order with and without its counted tail, with at most [`SCOUT_PARTICLES`] per
/// level (two plans, the same order: the tail is what most often makes the default plan
/// slow, yeast's dense_10_9 15–25 ms without it and 0.7 ms with it); then every order, where
/// the cheaper of `default_cost` and that first choice affords a comparison
/// ([`comparison_particles`]), or `overrun` does (the price of a default plan whose run went
/// on past its prediction, which the first stage's estimates, erring with the gate's, do not
/// lower), with as many particles as it affords, up to `particles`. Also the particles of the
/// stage that chose. A probe settles the second stage's choice (`Chooser::Probe`): the caller
/// probes a plan other than the default before it gives the default up.
#[allow(clippy::too_many_arguments)]
pub fn compare_staged(
    data: &Graph,
    query: &Query,
    options: PlanOptions,
    cands: Candidates,
    filter_ms: f64,
    particles: usize,
    default_cost: f64,
    overrun: f64,
    ms_per_particle: f64,
    control: &Control,
) -> (Plan, Vec<Considered>, usize) {
    let t = Instant::now();
    let scout = particles.min(SCOUT_PARTICLES);
    let bits = candidate_bits(data, &cands);
    let own = PlanOptions { order: Some(options.default_order()), ..options };
    // The first stage trusts reliable estimates only, to choose and to price: an unreliable
    // one, cheap for want of matches, would price the default plan's work low and starve the
    // second stage of the particles that reach matches (yeast's sparse_24_36: `card` with its
    // tail, reliable at the second stage's full particles, 1 ms; the default plan kept, 1.3 s;
    // sparse_16_144: GSI with its tail, 14 ms, where the default plan took 7.5 s).
    let (first, considered) =
        compare_sharing(data, query, own, cands, &bits, filter_ms, scout, Chooser::Estimates, control);
    let first_cost =
        first.estimate.as_ref().filter(|e| e.reliable()).map_or(default_cost, |e| options.price(e, first.multiplier));
    let threads = rayon::current_num_threads();
    let again = comparison_particles(&options, first_cost.min(default_cost).max(overrun), ms_per_particle, threads)
        .map(|p| p.min(particles))
        .filter(|_| options.order.is_none() && !control.should_stop());
    let (mut best, considered, used) = match again {
        Some(p) => {
            let cands = first.candidates_by_vertex();
            let (best, considered) =
                compare_sharing(data, query, options, cands, &bits, filter_ms, p, Chooser::Probe, control);
            (best, considered, p)
        }
        None => (first, considered, scout),
    };
    best.order_ms = t.elapsed().as_secs_f64() * 1e3;
    (best, considered, used)
}

/// The plan over candidate sets `cands` (C(u) sorted by id, per query vertex, each a superset
/// of u's true matches; `filter_ms` is reported as the filter's time), and every plan that was
/// estimated on the way: the default plan ([`default_plan`]) is estimated quickly first (over
/// the data graph) and kept when a comparison would not pay, else as [`compare`]. Once
/// `control` says stop, the default plan is kept unestimated.
pub fn choose(
    data: &Graph,
    query: &Query,
    options: PlanOptions,
    cands: Candidates,
    filter_ms: f64,
    control: &Control,
) -> (Plan, Vec<Considered>) {
    let t = Instant::now();
    let mut plan = default_plan(data, query, options, cands, filter_ms, control);
    if plan.empty || !has_alternatives(&options) || control.should_stop() {
        return (plan, Vec::new());
    }
    let cands = plan.take_candidates();
    let bits = candidate_bits(data, &cands);
    let injective = options.semantics.injective();
    let mut gate = Sampler::new(data, query, &cands, injective, GATE_PARTICLES, SEED).sharing(&bits).estimate(&plan);
    let (mut read, mut sampled) = (gate.read, GATE_PARTICLES);
    if options.device == Device::Gpu && options.price(&gate, plan.multiplier) >= GPU_RECHECK_COST {
        // Few particles miss the heavy subtrees of skewed searches (G3's dense_12_4 and
        // sparse_12_4 sampled 365 and 800 times too few embeddings with 16): a query that is
        // not clearly small is sampled again, with more, before the comparison is skipped.
        let parts: Vec<Estimate> = (1..=(GATE_RECHECK_PARTICLES / GATE_PARTICLES) as u64)
            .into_par_iter()
            .map(|k| {
                let seed = SEED ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03);
                Sampler::new(data, query, &cands, injective, GATE_PARTICLES, seed).sharing(&bits).estimate(&plan)
            })
            .collect();
        gate = Estimate::pooled(&parts);
        (read, sampled) = (read + gate.read, GATE_RECHECK_PARTICLES);
    }
    let per_particle = ms_per_particle(read, sampled);
    let cost = options.price(&gate, plan.multiplier);
    let particles = match options.device {
        Device::Cpu => comparison_particles(&options, cost, per_particle, rayon::current_num_threads()),
        // The share of the GPU's predicted time, at least GPU_PARTICLES.
        Device::Gpu => (cost >= GPU_COMPARE_COST).then(|| {
            let affordable = PLAN_SHARE * H200_COSTS.gpu_ms(cost) / comparison_ms(&options, 1, per_particle);
            (affordable as usize).clamp(GPU_PARTICLES, FULL_PARTICLES)
        }),
    };
    match particles {
        Some(particles) => {
            compare_sharing(data, query, options, cands, &bits, filter_ms, particles, Chooser::Estimates, control)
        }
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

/// What settles the choice between the default plan and the plan of least estimated work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chooser {
    /// The estimates alone: a plan replaces the default only where its estimate is reliable
    /// (`Estimate::reliable`; under a limit, no less reliable than the best's).
    Estimates,
    /// A probe of both plans' first levels (`pipeline::probe_prefers`) that follows: the plan
    /// of least estimated work is chosen whatever its estimate's reliability (against a
    /// default plan whose estimate is not reliable, the cheapest reliable one: [`replaces`]),
    /// and the probe decides. On wordnet, where the particles of most 8-vertex queries reach no match, the
    /// default GQL order stayed for want of a reliable estimate where `card` or RI, estimated
    /// cheapest, ran 2–7 times faster (dense_8_10: 103 against 16 ms).
    Probe,
}

/// The plan of least estimated work, sampled with `particles` particles per level: with
/// `options.order` set only that order is tried; with a tail allowed and `Tail::Auto`, each
/// order with and without its tail. Every estimated plan is returned too. Once `control` says
/// stop, the plans not yet estimated are left out (the default plan is always estimated).
/// `chooser` says what the choice is left to.
#[allow(clippy::too_many_arguments)]
pub fn compare(
    data: &Graph,
    query: &Query,
    options: PlanOptions,
    cands: Candidates,
    filter_ms: f64,
    particles: usize,
    chooser: Chooser,
    control: &Control,
) -> (Plan, Vec<Considered>) {
    let bits = candidate_bits(data, &cands);
    compare_sharing(data, query, options, cands, &bits, filter_ms, particles, chooser, control)
}

/// [`compare`] with the candidate bitsets built.
#[allow(clippy::too_many_arguments)]
fn compare_sharing(
    data: &Graph,
    query: &Query,
    options: PlanOptions,
    cands: Candidates,
    bits: &[Bitset],
    filter_ms: f64,
    particles: usize,
    chooser: Chooser,
    control: &Control,
) -> (Plan, Vec<Considered>) {
    let t = Instant::now();
    let sizes: Vec<usize> = cands.iter().map(Vec::len).collect();
    let shape = |order: Order, vertices: &[u32], tail: usize| {
        Plan::shaped(data, query, options, order, vertices.to_vec(), tail, &sizes, control)
    };
    let finish = |mut plan: Plan, estimate: Option<Estimate>, cands: Candidates| {
        plan.filter_ms = filter_ms;
        plan.order_ms = t.elapsed().as_secs_f64() * 1e3;
        plan.estimate = estimate;
        plan.with_candidates(cands)
    };
    let default_order = options.default_order();
    if sizes.contains(&0) {
        let vertices: Vec<u32> = (0..query.num_vertices() as u32).collect();
        return (finish(shape(default_order, &vertices, 0), None, cands), Vec::new());
    }
    // The default order first: the first plan estimated is the default plan.
    let planned: &[Order] = if options.limit.is_some() { &LIMIT_ORDERS } else { &Order::PLANNED };
    let orders = match options.order {
        Some(o) => vec![o],
        None => std::iter::once(default_order).chain(planned.iter().copied().filter(|&o| o != default_order)).collect(),
    };
    // Each order with its own samplers (seeded by the order), on the pool's threads. Every plan
    // is estimated twice, by independent halves of the particles, and priced by the dearer of
    // the two: sampling errs low on heavy-tailed searches (a few hubs hold most of the work),
    // and the cheapest of many low estimates is the likeliest to be wrong.
    let half = (particles / 2).max(1);
    let per_order: Vec<Vec<(Plan, Estimate)>> = orders
        .par_iter()
        .enumerate()
        .map(|(i, &order)| {
            if i > 0 && control.should_stop() {
                return Vec::new();
            }
            let seed = SEED ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let injective = options.semantics.injective();
            let mut sampler = Sampler::new(data, query, &cands, injective, half, seed).sharing(bits);
            let mut second = Sampler::new(data, query, &cands, injective, half, !seed).sharing(bits);
            let vertices = order.compute(data, query, &mut sampler);
            variants(query, &options, order, vertices)
                .into_iter()
                .enumerate()
                .take_while(|&(j, _)| (i, j) == (0, 0) || !control.should_stop())
                .map(|(_, (order, vertices, tail))| {
                    let plan = shape(order, &vertices, tail);
                    let (a, b) = rayon::join(|| sampler.estimate(&plan), || second.estimate(&plan));
                    let (pa, pb) = (options.price(&a, plan.multiplier), options.price(&b, plan.multiplier));
                    (plan, if pa >= pb { a } else { b })
                })
                .collect()
        })
        .collect();
    // The first plan is the default one; another replaces it only where `replaces` says.
    let may_switch = has_alternatives(&options) || compares_under_limit(&options);
    let mut considered: Vec<Considered> = Vec::new();
    let mut best: Option<(Plan, Estimate, f64)> = None;
    // The default plan's price and reliability, and whether another replaced it.
    let (mut default_price, mut default_reliable, mut replaced) = (f64::INFINITY, true, false);
    for (plan, estimate) in per_order.into_iter().flatten() {
        if considered.iter().any(|c| c.vertices == plan.vertices && c.tail == plan.tail) {
            continue;
        }
        considered.push(Considered::of(&plan, estimate.clone()));
        let price = options.price(&estimate, plan.multiplier);
        if best.is_none() {
            (default_price, default_reliable) = (price, estimate.reliable());
            best = Some((plan, estimate, price));
        } else if may_switch
            && best.as_ref().is_some_and(|b| {
                let best = Best { estimate: &b.1, price: b.2, default: !replaced, default_price, default_reliable };
                replaces(&options, chooser, (&estimate, price, plan.tail), best)
            })
        {
            best = Some((plan, estimate, price));
            replaced = true;
        }
    }
    let (plan, estimate, _) = best.expect("at least one plan");
    (finish(plan, Some(estimate), cands), considered)
}

/// The best plan so far of a comparison, as [`replaces`] weighs it.
struct Best<'a> {
    estimate: &'a Estimate,
    price: f64,
    /// Whether it is the default plan.
    default: bool,
    /// The default plan's price.
    default_price: f64,
    /// Whether the default plan's estimate is reliable.
    default_reliable: bool,
}

/// Whether a plan estimated as `challenger` (with its price and counted tail) replaces
/// `best`, the best so far:
/// - `Chooser::Estimates`: with less work than the best, and an estimate that is reliable
///   (`Estimate::reliable`) or, under a limit, no less reliable than the best's. Under a
///   limit the particles of large searches rarely reach a match (none did on wordnet's 12- to
///   20-vertex dense queries), and the work they saw on the way is what tells the orders
///   apart.
/// - `Chooser::Probe`: with less work than the default plan, or, where the default plan's
///   estimate is not reliable, with a reliable one; among such plans those priced below the
///   default first (yeast's dense_24_53: RI, unreliable and cheaper, 3 ms; `card`, reliable and
///   dearer, lost its probe to the default, 13 ms), then a reliable estimate before an
///   unreliable one, then the least work. The probe's one challenger is the
///   likelier winner: on wordnet's dense_8_12 and _39 a reliable RI (26 and 103 ms) lost the
///   probe's place to an unreliable `card` estimated cheaper (47 and 200 ms). A default plan
///   whose particles all died is priced by the search above where they died, a floor of its
///   work, not an estimate: yeast's dense_16_122 kept GQL, priced at 1.3·10^7 units and
///   run in 1.1 s, over RI with its tail, reliably 3.5·10^7 and run in 30 ms.
///
/// Either way a plan with a counted tail needs a reliable estimate: where the particles died
/// before the tail, the tail's counting, the work the tail is there for, is not in the price
/// at all (wordnet's dense_8_53: RI with a tail of three, estimated cheapest and probed at
/// less than the default's time, ran 9 times as long).
fn replaces(options: &PlanOptions, chooser: Chooser, challenger: (&Estimate, f64, usize), best: Best) -> bool {
    let (reliable, price, tail) = (challenger.0.reliable(), challenger.1, challenger.2);
    let best_reliable = best.estimate.reliable();
    (reliable || tail == 0)
        && match chooser {
            Chooser::Probe => {
                let below = price < best.default_price;
                let best_below = best.price < best.default_price;
                (below || (reliable && !best.default_reliable))
                    && (best.default || (below, reliable, -price) > (best_below, best_reliable, -best.price))
            }
            Chooser::Estimates => price < best.price && (reliable || (options.limit.is_some() && !best_reliable)),
        }
}

/// Whether the estimates alone choose `challenger` over the default plan, estimated as
/// `default` (with `multiplier`, the default plan's): the challenger's estimate is reliable
/// and prices it below the default's. A probe between the two that finds neither faster keeps
/// such a challenger (`pipeline::probe_prefers`); one that [`replaces`] let in only because the
/// default's estimate is not reliable it does not.
pub fn outprices(options: &PlanOptions, challenger: &Plan, default: &Estimate, multiplier: u128) -> bool {
    challenger
        .estimate
        .as_ref()
        .is_some_and(|e| e.reliable() && options.price(e, challenger.multiplier) < options.price(default, multiplier))
}

/// The plans an order gives: without a counted tail first (the default plan: on small
/// queries enumerating the last vertices costs less than counting them together), then with
/// its tail when one is allowed and exists and there is no limit; only the latter under
/// `Tail::On`. Under a limit a tail moved to the end leaves the search below it to find every
/// prefix first (wordnet's dense_20_62 reached 10^5 matches in 19.5 s with its tail, 0.17 s
/// without).
fn variants(query: &Query, options: &PlanOptions, order: Order, vertices: Vec<u32>) -> Vec<(Order, Vec<u32>, usize)> {
    let with_tail = options.allows_tail().then(|| tail_order(query, &vertices)).flatten();
    match (with_tail, options.tail) {
        (Some((t, k)), Tail::On) => vec![(order, t, k)],
        (Some((t, k)), _) if options.limit.is_none() => vec![(order, vertices, 0), (order, t, k)],
        _ => vec![(order, vertices, 0)],
    }
}

/// The order with a counted tail moved to its end: query vertices taken from the end of
/// `order` while they are pairwise non-adjacent, at most [`MAX_GROUP`] per label and
/// [`MAX_TAIL`] in all, and taking them out leaves every other vertex that had an earlier
/// neighbour with one (no new Cartesian products). None when fewer than two qualify.
pub fn tail_order(query: &Query, order: &[u32]) -> Option<(Vec<u32>, usize)> {
    tail_order_by(query, order, false)
}

/// [`tail_order`], taking only vertices with no neighbour after them in `order` where
/// `unlinked`: moving such a vertex to the end takes no backward neighbour from a vertex
/// matched after it, so no extension loses an intersection.
pub fn tail_order_by(query: &Query, order: &[u32], unlinked: bool) -> Option<(Vec<u32>, usize)> {
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
        if query.edges(u).iter().any(|e| !kept[position[e.to as usize]] || (unlinked && position[e.to as usize] > i))
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

    /// A path of four over a complete graph of eight, every vertex a candidate: several
    /// orders, each with a tail.
    fn path_over_complete() -> (Graph, Query, Candidates) {
        let edges: Vec<(u32, u32, u32)> = (0..8).flat_map(|a| (a + 1..8).map(move |b| (a, b, 0))).collect();
        let data = GraphBuilder::from_parts(vec![0; 8], edges, false).build().0;
        let path = GraphBuilder::from_parts(vec![0; 4], vec![(0, 1, 0), (1, 2, 0), (2, 3, 0)], false).build().0;
        let q = Query::new(path, &data, Semantics::Embed).unwrap();
        let cands = vec![(0..8).collect::<Vec<u32>>(); 4];
        (data, q, cands)
    }

    #[test]
    fn a_stopped_comparison_keeps_the_default_plan() {
        let (data, q, cands) = path_over_complete();
        let options = PlanOptions::default();
        let compare =
            |control: &Control| compare(&data, &q, options, cands.clone(), 0.0, 32, Chooser::Estimates, control);
        let (all, considered) = compare(&Control::unlimited());
        assert!(considered.len() > 1, "{considered:?}");
        let expired = Control::new(Some(Instant::now()), Default::default());
        let (first, considered) = compare(&expired);
        assert_eq!(considered.len(), 1);
        assert_eq!(
            first.vertices,
            default_plan(&data, &q, options, cands.clone(), 0.0, &Control::unlimited()).vertices
        );
        assert_eq!(first.len(), all.len());
        // `choose` keeps the default plan unestimated.
        let (chosen, considered) = choose(&data, &q, options, cands.clone(), 0.0, &expired);
        assert!(considered.is_empty() && chosen.estimate.is_none());
    }

    #[test]
    fn a_limit_compares_two_orders_without_tails() {
        let (data, q, cands) = path_over_complete();
        let limited = PlanOptions { limit: Some(10), ..PlanOptions::default() };
        assert!(compares_under_limit(&limited) && !has_alternatives(&limited));
        assert!(!compares_under_limit(&PlanOptions { device: Device::Gpu, ..limited }));
        assert!(!compares_under_limit(&PlanOptions { order: Some(Order::Gql), ..limited }));
        assert!(!compares_under_limit(&PlanOptions::default()));
        let (_, considered) =
            compare(&data, &q, limited, cands.clone(), 0.0, 32, Chooser::Estimates, &Control::unlimited());
        assert!(!considered.is_empty());
        assert!(considered.iter().all(|c| LIMIT_ORDERS.iter().any(|o| o.name() == c.order) && c.tail == 0));
        // Without the limit the same query has tails to compare.
        let (_, all) =
            compare(&data, &q, PlanOptions::default(), cands, 0.0, 32, Chooser::Estimates, &Control::unlimited());
        assert!(all.iter().any(|c| c.tail > 0), "{all:?}");
        // A limited comparison is affordable from SMALL_COST, with at least MIN_PARTICLES.
        let per_particle = 1.0;
        assert_eq!(comparison_particles(&limited, SMALL_COST, per_particle, 1), Some(MIN_PARTICLES));
        assert_eq!(comparison_particles(&limited, SMALL_COST * 0.99, per_particle, 1), None);
        assert_eq!(comparison_particles(&PlanOptions::default(), SMALL_COST, per_particle, 1), None);
        assert!(comparison_ms(&limited, 10, 1.0) < comparison_ms(&PlanOptions::default(), 10, 1.0));
    }

    #[test]
    fn a_staged_comparison_compares_every_order_only_where_it_pays() {
        // A path of five over a complete graph of 40: about 10^8 matches, every order priced
        // far above SMALL_COST.
        let edges: Vec<(u32, u32, u32)> = (0..40).flat_map(|a| (a + 1..40).map(move |b| (a, b, 0))).collect();
        let data = GraphBuilder::from_parts(vec![0; 40], edges, false).build().0;
        let path = GraphBuilder::from_parts(vec![0; 5], (0..4).map(|i| (i, i + 1, 0)).collect(), false).build().0;
        let q = Query::new(path, &data, Semantics::Embed).unwrap();
        let cands = vec![(0..40).collect::<Vec<u32>>(); 5];
        let options = PlanOptions::default();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let staged = |default_cost: f64, overrun: f64, ms_per_particle: f64| {
            one.install(|| {
                let control = Control::unlimited();
                let cands = cands.clone();
                compare_staged(
                    &data,
                    &q,
                    options,
                    cands,
                    0.0,
                    FULL_PARTICLES,
                    default_cost,
                    overrun,
                    ms_per_particle,
                    &control,
                )
            })
        };
        // Sampling that costs nothing affords every order, with every particle.
        let (_, considered, used) = staged(1e12, 0.0, 1e-12);
        assert_eq!(used, FULL_PARTICLES);
        assert!(considered.iter().any(|c| c.order != "gql"), "{considered:?}");
        // Dear sampling affords only the first stage: the default order (with and without its
        // tail, where it has one), with SCOUT_PARTICLES.
        let (plan, considered, used) = staged(1e12, 0.0, 1.0);
        assert_eq!(used, SCOUT_PARTICLES);
        assert!(considered.iter().all(|c| c.order == "gql"), "{considered:?}");
        assert_eq!(plan.order, Order::Gql);
        // A default plan priced cheap keeps the first stage, whatever the first stage's
        // estimates say; one whose run went on past that price (an overrun that affords every
        // order) is compared with every order.
        let (_, considered, used) = staged(SMALL_COST, 0.0, 1e-3);
        assert!(used == SCOUT_PARTICLES && considered.iter().all(|c| c.order == "gql"), "{considered:?}");
        let (_, considered, used) = staged(SMALL_COST, 1e12, 1e-3);
        assert!(used == FULL_PARTICLES && considered.iter().any(|c| c.order != "gql"), "{considered:?}");
    }

    #[test]
    fn unreliable_estimates_compete_only_under_a_limit() {
        let estimate = |matches: f64| Estimate {
            levels: Vec::new(),
            matches,
            cost: 0.0,
            work: 0.0,
            nodes: 0.0,
            leaves: 0.0,
            particles: 16,
            read: 0.0,
        };
        let (none, some) = (estimate(0.0), estimate(5.0));
        let (free, limited) = (PlanOptions::default(), PlanOptions { limit: Some(10), ..PlanOptions::default() });
        // Against the default plan (priced 2).
        fn default(estimate: &Estimate) -> Best<'_> {
            Best { estimate, price: 2.0, default: true, default_price: 2.0, default_reliable: estimate.reliable() }
        }
        let by = |o: &PlanOptions, c: (&Estimate, f64, usize), best| replaces(o, Chooser::Estimates, c, best);
        // Cheaper and reliable always replaces; dearer never does.
        for o in [&free, &limited] {
            assert!(by(o, (&some, 1.0, 0), default(&none)));
            assert!(by(o, (&some, 1.0, 0), default(&some)));
            assert!(!by(o, (&some, 3.0, 0), default(&none)));
        }
        // Cheaper without a match: only under a limit, and only against a best without one.
        assert!(!by(&free, (&none, 1.0, 0), default(&none)));
        assert!(by(&limited, (&none, 1.0, 0), default(&none)));
        assert!(!by(&limited, (&none, 1.0, 0), default(&some)));
        // Where a probe decides: anything cheaper than the default replaces it (a counted tail
        // needs a reliable estimate, below); after that a reliable estimate beats an
        // unreliable one, and the cheaper of two alike wins; one dearer than the default only
        // where it is reliable and the default's estimate is not.
        let probe = |c: (&Estimate, f64, usize), best| replaces(&free, Chooser::Probe, c, best);
        assert!(probe((&none, 1.0, 0), default(&some)));
        assert!(!probe((&some, 3.0, 0), default(&some)));
        assert!(!probe((&none, 3.0, 0), default(&none)));
        assert!(probe((&some, 3.0, 0), default(&none)));
        assert!(probe((&some, 3.0, 2), default(&none)));
        let other = |estimate, price, default_reliable| Best {
            estimate,
            price,
            default: false,
            default_price: 2.0,
            default_reliable,
        };
        assert!(probe((&some, 1.5, 0), other(&none, 0.5, true)));
        assert!(!probe((&none, 0.5, 0), other(&some, 1.5, true)));
        assert!(probe((&none, 0.5, 0), other(&none, 1.5, true)));
        assert!(!probe((&some, 1.5, 0), other(&some, 0.5, true)));
        assert!(!probe((&some, 2.5, 0), other(&none, 1.5, true)));
        // Where the default's estimate is not reliable, a reliable plan dearer than the default
        // comes after every plan cheaper than it, and the cheaper of two such wins.
        assert!(!probe((&some, 2.5, 0), other(&none, 1.5, false)));
        assert!(probe((&some, 2.5, 0), other(&some, 3.0, false)));
        assert!(!probe((&some, 3.0, 0), other(&some, 2.5, false)));
        // A plan with a counted tail only with a reliable estimate.
        assert!(!probe((&none, 1.0, 3), default(&some)));
        assert!(probe((&some, 1.0, 3), default(&some)));
    }

    #[test]
    fn only_a_reliable_challenger_priced_below_the_default_outprices_it() {
        let (data, q, cands) = path_over_complete();
        let options = PlanOptions::default();
        let plan = default_plan(&data, &q, options, cands, 0.0, &Control::unlimited());
        let estimate = |matches: f64, work: f64| Estimate {
            levels: Vec::new(),
            matches,
            cost: work,
            work,
            nodes: 0.0,
            leaves: 0.0,
            particles: 16,
            read: 0.0,
        };
        let challenger = |e| Plan { estimate: Some(e), ..plan.clone() };
        // The default plan's particles died: its price, 10, is a floor.
        let floor = estimate(0.0, 10.0);
        let by = |c: &Plan| outprices(&options, c, &floor, plan.multiplier);
        assert!(by(&challenger(estimate(5.0, 5.0))));
        assert!(!by(&challenger(estimate(5.0, 20.0))));
        assert!(!by(&challenger(estimate(0.0, 5.0))));
        assert!(!by(&Plan { estimate: None, ..plan.clone() }));
        // Against a reliable default, the same.
        assert!(outprices(&options, &challenger(estimate(5.0, 5.0)), &estimate(3.0, 10.0), plan.multiplier));
        assert!(!outprices(&options, &challenger(estimate(5.0, 20.0)), &estimate(3.0, 10.0), plan.multiplier));
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
        // Only where no later vertex loses it as a backward neighbour: 1 precedes its
        // neighbour 2, which would be extended without it.
        let q = query(4, vec![0, 1, 2, 3], &[(0, 1), (1, 2), (0, 2), (2, 3)]);
        assert_eq!(tail_order(&q, &[0, 1, 2, 3]), Some((vec![0, 2, 1, 3], 2)));
        assert_eq!(tail_order_by(&q, &[0, 1, 2, 3], true), None);
        assert_eq!(tail_order_by(&q, &[0, 2, 1, 3], true), Some((vec![0, 2, 1, 3], 2)));
    }
}
