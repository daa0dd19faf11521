//! What decides how one query is matched on the CPU ([`MatchOptions`]), and the plan options
//! it makes for the planner.

use crate::cpu::FailingSets;
use crate::filter::Filter;
use crate::order::Order;
use crate::plan::{Device, PlanOptions, Symmetry, Tail};
use crate::query::Semantics;
use crate::space::{Bitmaps, SpaceBuild};
use crate::spasm;

/// Everything that decides how one query is matched.
#[derive(Debug, Clone, Copy)]
pub struct MatchOptions {
    pub semantics: Semantics,
    pub filter: Filter,
    /// The matching order; `None`: the planner's choice by estimated cost.
    pub order: Option<Order>,
    pub symmetry: Symmetry,
    pub tail: Tail,
    pub limit: Option<u64>,
    pub failing_sets: FailingSets,
    /// Bytes of host memory a query's candidate space may take (`--max-memory`), besides the
    /// memory the system has available.
    pub max_memory: Option<u64>,
    /// Whether a count may come from the quotients' homomorphisms (`--spasm`).
    pub spasm: spasm::Mode,
    /// When the candidate space's lists are made (`--space`).
    pub space: SpaceBuild,
    /// Whether an eager space also keeps lists as bitmaps where they are dense (`--bitmaps`).
    pub bitmaps: Bitmaps,
}

impl Default for MatchOptions {
    fn default() -> Self {
        let p = PlanOptions::default();
        MatchOptions {
            semantics: p.semantics,
            filter: p.filter,
            order: p.order,
            symmetry: p.symmetry,
            tail: p.tail,
            limit: None,
            failing_sets: FailingSets::Auto,
            max_memory: None,
            spasm: spasm::Mode::Auto,
            space: SpaceBuild::Auto,
            bitmaps: Bitmaps::Auto,
        }
    }
}

impl MatchOptions {
    /// What the spasm needs to count a query ([`spasm::attempt`]), with the engine's
    /// predicted enumeration time.
    pub fn spasm(&self, counting: bool, predicted_ms: f64) -> spasm::Attempt {
        spasm::Attempt { semantics: self.semantics, mode: self.spasm, counting, limit: self.limit, predicted_ms }
    }

    /// The plan options for the CPU engine; `counting` when no match is written.
    pub fn plan(&self, counting: bool) -> PlanOptions {
        PlanOptions {
            semantics: self.semantics,
            filter: self.filter,
            order: self.order,
            symmetry: self.symmetry,
            tail: self.tail,
            counting,
            device: Device::Cpu,
            limit: self.limit,
        }
    }
}
