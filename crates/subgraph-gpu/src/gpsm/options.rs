//! GpSM's ablation switches (`--gpsm-rounds`, `--gpsm-min-degree`) and their defaults.

/// GpSM's refinement rounds k by default: the paper leaves k open ("a limited number of
/// rounds"); FSIG's t_max of 3, and fewer when a round removes nothing.
pub const ROUNDS: usize = 3;
/// Query vertices with fewer incident edges than this stay out of the refinement by default
/// (GpSM's "simplified query" leaves out low-connectivity vertices: for small queries, the
/// leaves); they keep the candidates the exploration gave them.
pub const MIN_DEGREE: usize = 2;

/// GpSM's ablation switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpsmOptions {
    /// Refinement rounds after the exploration (0: none).
    pub rounds: usize,
    /// Fewest incident edges of a query vertex that the refinement prunes and checks against.
    pub min_degree: usize,
}

impl Default for GpsmOptions {
    fn default() -> Self {
        GpsmOptions { rounds: ROUNDS, min_degree: MIN_DEGREE }
    }
}
