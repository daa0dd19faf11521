//! What an estimate of a plan is and how each engine prices it: the predicted partial matches
//! per level, the work in units of about one merged list element ([`NODE_UNITS`] per
//! enumerated partial match, [`LEAF_UNITS`] per counted position), and the devices' weights.
//! The plan records its estimate and prices it (`plan`), so this module sits below `plan`;
//! the sampling that makes estimates over plans and candidate spaces (`sampling`) sits above
//! both.

pub mod sampling;

/// Work units per partial match the enumeration visits.
pub const NODE_UNITS: f64 = 16.0;
/// Work units per counted position of each partial match whose last level (or tail) is
/// counted.
pub const LEAF_UNITS: f64 = 8.0;

/// How a device prices an estimate's parts, a merged list element costing 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Per enumerated partial match.
    pub node: f64,
    /// Per counted position of each partial match whose last positions are counted.
    pub leaf: f64,
}

/// The CPU engine: a node of the backtracking, a counted position's set-up.
pub const CPU_WEIGHTS: Weights = Weights { node: NODE_UNITS, leaf: LEAF_UNITS };
/// The GPU engine: a row the breadth-first join materialises, or the depth-first kernel counts,
/// costs a warp's pass (slice lookups, a 32-lane batch, a write), where merged elements stream
/// 32 at a time: rows weigh four times what they weigh on the CPU (measured on wordnet
/// sparse_8 and G3, bench/results/2026-11-25-heavy-queries.md: counted tails that multiply the
/// rows before them lose on the GPU, those that replace deep levels win).
pub const GPU_WEIGHTS: Weights = Weights { node: 4.0 * NODE_UNITS, leaf: 4.0 * LEAF_UNITS };

/// What a sampler predicts for one plan.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// Partial matches of positions 0..=i, for every enumerated position i, then the plan's
    /// matches (before its multiplier) as the last entry.
    pub levels: Vec<f64>,
    /// Matches of the plan, before its multiplier.
    pub matches: f64,
    /// Work in units of about one merged list element, priced for the CPU.
    pub cost: f64,
    /// The parts of the cost: merged list elements, enumerated partial matches, and counted
    /// positions of partial matches.
    pub work: f64,
    pub nodes: f64,
    pub leaves: f64,
    /// Particles per level.
    pub particles: usize,
    /// List elements the sampling itself read, plus [`CALL_READS`] per local set it made: a measure of
    /// the estimate's own time that does not depend on the clock, so that what the planner
    /// spends on later estimates, and hence the plan it picks, is the same from run to run.
    pub read: f64,
}

impl Estimate {
    /// The mean of independent estimates of one plan (each unbiased, so their mean is too),
    /// over all their particles and reads.
    pub fn pooled(parts: &[Estimate]) -> Estimate {
        let k = parts.len().max(1) as f64;
        let mean = |f: fn(&Estimate) -> f64| parts.iter().map(f).sum::<f64>() / k;
        let depth = parts.iter().map(|e| e.levels.len()).max().unwrap_or(0);
        Estimate {
            levels: (0..depth).map(|i| parts.iter().filter_map(|e| e.levels.get(i)).sum::<f64>() / k).collect(),
            matches: mean(|e| e.matches),
            cost: mean(|e| e.cost),
            work: mean(|e| e.work),
            nodes: mean(|e| e.nodes),
            leaves: mean(|e| e.leaves),
            particles: parts.iter().map(|e| e.particles).sum(),
            read: parts.iter().map(|e| e.read).sum(),
        }
    }

    /// The work priced by `w`.
    pub fn cost_with(&self, w: &Weights) -> f64 {
        self.work + w.node * self.nodes + w.leaf * self.leaves
    }

    /// Whether the particles reached complete matches. One whose particles all died on the
    /// way says nothing of the search below the level where they died (rare matches in a
    /// large search look free to it), so the planner does not trust it over the default plan.
    pub fn reliable(&self) -> bool {
        self.matches > 0.0
    }
}

/// What making one local set costs the sampler beyond the list elements it reads, in reads
/// (the planner prices a read at `planner::SAMPLING_NS_PER_READ`). Fitted on the 2-core
/// development VM, 2026-11-26, over 292 estimates (16 and 128 particles; yeast, wordnet, G1,
/// G3 and rmat16k queries): 93 ns per local set and 1.2 ns per element over the data graph,
/// 59 ns and 0.4 ns over candidate spaces.
pub const CALL_READS: f64 = 75.0;
