//! The plan both engines run: candidates from a filter, a matching order, and for every query
//! vertex the links to its already-matched neighbours (and, for induced matching, its
//! already-matched non-neighbours) — Sun & Luo §3's "filter, order, enumerate" split — plus
//! what lets an engine do less than enumerate every embedding: symmetry-breaking restrictions
//! (`automorphism`) with the number of embeddings each match stands for, and a tail of
//! pairwise non-adjacent last vertices counted together (`tail`). Which order and tail a query
//! gets is the planner's choice (`planner`).
//!
//! The plan is what the later stages read: it names its order (`order`) and records and prices
//! its estimate (`estimate`), both below it; the candidate space (`space`), the sampling
//! (`estimate::sampling`), the orders' computation (`order::compute`, `order::cfl`) and the
//! planner read it from above, in that order.

use crate::automorphism::Automorphisms;
use crate::estimate::{Estimate, Weights, CPU_WEIGHTS, GPU_WEIGHTS};
use crate::filter::{Candidates, Filter};
use crate::graph::{Dir, Graph};
use crate::order::Order;
use crate::query::{Query, Semantics};
use crate::sink::Control;

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

/// Symmetry breaking: enumerate one embedding per orbit of Aut(Q) and multiply (or expand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symmetry {
    /// On wherever valid: `embed` and `induced` (the automorphisms act freely on injective maps).
    Auto,
    /// As `Auto`; asking for it under `homomorphism` is the caller's error to report.
    On,
    Off,
}

impl Symmetry {
    pub const NAMES: &'static [&'static str] = &["auto", "on", "off"];

    pub fn from_name(name: &str) -> Option<Symmetry> {
        match name {
            "auto" => Some(Symmetry::Auto),
            "on" => Some(Symmetry::On),
            "off" => Some(Symmetry::Off),
            _ => None,
        }
    }
}

/// Counting the last pairwise non-adjacent query vertices together (inclusion–exclusion over
/// their candidate sets) instead of enumerating them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// When the planner's cost estimate prefers it.
    Auto,
    /// Whenever the order leaves at least two such vertices (or can be made to).
    On,
    Off,
}

impl Tail {
    pub const NAMES: &'static [&'static str] = &["auto", "on", "off"];

    pub fn from_name(name: &str) -> Option<Tail> {
        match name {
            "auto" => Some(Tail::Auto),
            "on" => Some(Tail::On),
            "off" => Some(Tail::Off),
            _ => None,
        }
    }
}

/// Where a query runs: the planner prices plans for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    Cpu,
    Gpu,
}

/// Which parts make a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    pub semantics: Semantics,
    pub filter: Filter,
    /// The matching order; `None`: the one of least estimated cost.
    pub order: Option<Order>,
    pub symmetry: Symmetry,
    pub tail: Tail,
    /// Matches are only counted, not written: the tail may be counted by inclusion–exclusion
    /// and the restrictions may leave the tail's symmetry to it.
    pub counting: bool,
    /// The engine that will run the plan.
    pub device: Device,
    /// The embeddings after which the engine stops: plans are priced by the work to reach it.
    pub limit: Option<u64>,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            semantics: Semantics::Embed,
            filter: Filter::Auto,
            order: None,
            symmetry: Symmetry::Auto,
            tail: Tail::Auto,
            counting: true,
            device: Device::Cpu,
            limit: None,
        }
    }
}

impl PlanOptions {
    /// Whether symmetry breaking applies.
    pub fn breaks_symmetry(&self) -> bool {
        self.symmetry != Symmetry::Off && self.semantics.injective()
    }

    /// Whether a tail of several vertices may be counted together: counting only, and not
    /// under `induced` (inclusion–exclusion over sets does not see the non-edges between the
    /// tail vertices).
    pub fn allows_tail(&self) -> bool {
        self.tail != Tail::Off && self.counting && self.semantics != Semantics::Induced
    }

    /// The order of the default plan: `order`, else GQL on the CPU and GSI on the GPU (whose
    /// join it suits: G3's 8-vertex classes 1.0–1.5 ms against GQL's 1.4–1.9 ms, H200).
    pub fn default_order(&self) -> Order {
        self.order.unwrap_or(match self.device {
            Device::Cpu => Order::Gql,
            Device::Gpu => Order::Gsi,
        })
    }

    /// How the device prices an estimate.
    pub fn weights(&self) -> Weights {
        match self.device {
            Device::Cpu => CPU_WEIGHTS,
            Device::Gpu => GPU_WEIGHTS,
        }
    }

    /// The work `e` predicts for a plan whose matches stand for `multiplier` embeddings each,
    /// priced for the device, up to the limit: under a limit of L embeddings out of an
    /// estimated E > L, the share L / E of the whole (matches assumed spread evenly over the
    /// search; an estimate that found none is not scaled).
    pub fn price(&self, e: &Estimate, multiplier: u128) -> f64 {
        let whole = e.cost_with(&self.weights());
        let embeddings = e.matches * multiplier as f64;
        match self.limit {
            Some(l) if embeddings > l as f64 => whole * (l as f64 / embeddings),
            _ => whole,
        }
    }
}

/// Filtered, ordered query. Positions index the matching order.
#[derive(Debug, Clone)]
pub struct Plan {
    pub options: PlanOptions,
    /// The order that made `vertices`.
    pub order: Order,
    /// Query vertex at each position.
    pub vertices: Vec<u32>,
    /// Candidates of the query vertex at each position, sorted by id.
    pub candidates: Candidates,
    /// |C| of the query vertex at each position.
    pub sizes: Vec<usize>,
    /// Links from earlier positions, per position (empty for the first vertex of a component).
    pub backward: Vec<Vec<Link>>,
    /// Induced matching: non-edges to earlier positions, per position.
    pub non_edges: Vec<Vec<NonEdge>>,
    /// Symmetry breaking, per position: earlier positions whose data vertex must be smaller
    /// than this position's.
    pub greater_than: Vec<Vec<usize>>,
    /// The last `tail` positions (at least 2 when set, else 0) are pairwise non-adjacent, have
    /// every neighbour earlier, and are counted together.
    pub tail: usize,
    /// The automorphisms behind `greater_than`, when it has any.
    pub symmetry: Option<Automorphisms>,
    /// Embeddings each match of the plan stands for (1 without restrictions).
    pub multiplier: u128,
    /// True when some candidate set is empty or some query edge's labels occur nowhere:
    /// no match exists.
    pub empty: bool,
    pub filter_ms: f64,
    /// Choosing the order: computing it, and estimating the costs of the alternatives.
    pub order_ms: f64,
    /// The planner's estimate for this plan, when it made one.
    pub estimate: Option<Estimate>,
}

pub(crate) fn flip(d: Dir, directed: bool) -> Dir {
    match (d, directed) {
        (_, false) => Dir::Out,
        (Dir::Out, true) => Dir::In,
        (Dir::In, true) => Dir::Out,
    }
}

/// The links of query vertex `u` to the placed vertices (`position[w]` = Some(position)),
/// sorted by position; None when some query edge's labels occur nowhere in the data.
pub(crate) fn links_to(data: &Graph, query: &Query, position: &[Option<usize>], u: u32) -> Option<Vec<Link>> {
    let mut links = Vec::new();
    for e in query.edges(u) {
        let Some(from) = position[e.to as usize] else { continue };
        let pair = data.pair_id(e.label, query.label(u))?;
        links.push(Link { from, dir: flip(e.dir, data.is_directed()), edge_label: e.label, pair });
    }
    links.sort_by_key(|l: &Link| l.from);
    Some(links)
}

impl Plan {
    /// The plan that matches in order `vertices` (a permutation of the query vertices) whose
    /// last `tail` positions are counted together (0 or at least 2; they must be pairwise
    /// non-adjacent), over candidate sets of sizes `sizes_by_vertex[u]` = |C(u)|. The candidate
    /// lists are left empty: [`Plan::with_candidates`] moves them in. Once `control` says
    /// stop, the search for the query's automorphisms is cut short and the plan breaks no
    /// symmetry.
    #[allow(clippy::too_many_arguments)]
    pub fn shaped(
        data: &Graph,
        query: &Query,
        options: PlanOptions,
        order: Order,
        vertices: Vec<u32>,
        tail: usize,
        sizes_by_vertex: &[usize],
        control: &Control,
    ) -> Plan {
        let n = vertices.len();
        debug_assert!(tail != 1 && tail <= n);
        let mut position = vec![None; n];
        let mut empty = sizes_by_vertex.contains(&0);
        let mut backward = vec![Vec::new(); n];
        let mut non_edges = vec![Vec::new(); n];
        let directed = data.is_directed();
        for (i, &u) in vertices.iter().enumerate() {
            match links_to(data, query, &position, u) {
                Some(links) => backward[i] = links,
                None => empty = true,
            }
            position[u as usize] = Some(i);
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
        let mut greater_than = vec![Vec::new(); n];
        let mut symmetry = None;
        let mut multiplier = 1;
        // A query restricted by property tests has automorphisms that its restrictions break:
        // it is matched without symmetry breaking.
        if options.breaks_symmetry() && !query.graph().is_restricted() {
            let in_tail = |v: u32| position[v as usize].is_some_and(|p| p >= n - tail);
            let aut = Automorphisms::chain_until(
                query.graph(),
                &vertices,
                |v| tail > 0 && in_tail(v),
                || control.should_stop(),
            );
            if let (Some(_), Some(m)) = (aut.order(), aut.multiplier()) {
                if m > 1 {
                    for (b, w) in aut.restrictions() {
                        let (pb, pw) = (position[b as usize].expect("placed"), position[w as usize].expect("placed"));
                        debug_assert!(pb < pw, "a base is matched before its orbit");
                        greater_than[pw].push(pb);
                    }
                    multiplier = m;
                    symmetry = Some(aut);
                }
            }
        }
        let sizes = vertices.iter().map(|&u| sizes_by_vertex[u as usize]).collect();
        Plan {
            options,
            order,
            vertices,
            candidates: vec![Vec::new(); n],
            sizes,
            backward,
            non_edges,
            greater_than,
            tail,
            symmetry,
            multiplier,
            empty,
            filter_ms: 0.0,
            order_ms: 0.0,
            estimate: None,
        }
    }

    /// Moves each position's candidate list out of `by_vertex` (indexed by query vertex).
    pub fn with_candidates(mut self, mut by_vertex: Candidates) -> Plan {
        self.candidates = self.vertices.iter().map(|&u| std::mem::take(&mut by_vertex[u as usize])).collect();
        self
    }

    /// A copy of the candidate lists, indexed by query vertex.
    pub fn candidates_by_vertex(&self) -> Candidates {
        let mut by_vertex = vec![Vec::new(); self.len()];
        for (p, &u) in self.vertices.iter().enumerate() {
            by_vertex[u as usize] = self.candidates[p].clone();
        }
        by_vertex
    }

    /// Moves the candidate lists out, indexed by query vertex again.
    pub fn take_candidates(&mut self) -> Candidates {
        let mut by_vertex = vec![Vec::new(); self.len()];
        for (p, &u) in self.vertices.iter().enumerate() {
            by_vertex[u as usize] = std::mem::take(&mut self.candidates[p]);
        }
        by_vertex
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

    /// Number of symmetry-breaking restrictions.
    pub fn restriction_count(&self) -> usize {
        self.greater_than.iter().map(Vec::len).sum()
    }

    /// The first position of the counted tail (the last position when there is none).
    pub fn tail_start(&self) -> usize {
        self.len() - self.tail.max(1)
    }
}
