//! Small random labelled graphs for the tests of the GSI structures (GSI §IV–§V): an
//! xorshift64* generator, uniform endpoints with a few hubs for skew, labels drawn uniformly.
//! Shared by the unit tests and, through `#[path]`, the integration tests.

use subgraph_core::{Graph, GraphBuilder};

/// What to generate.
pub struct GraphSpec {
    pub vertices: usize,
    pub edges: usize,
    pub vertex_labels: u32,
    pub edge_labels: u32,
    pub directed: bool,
    pub seed: u64,
}

/// xorshift64* (Vigna).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A random graph: a quarter of the edges touch one of a few hubs. Labels are spread over
/// non-contiguous raw values (multiples of 3) to catch code that assumes dense labels.
pub fn random_graph(spec: &GraphSpec) -> Graph {
    let mut rng = Rng::new(spec.seed);
    let n = spec.vertices as u64;
    let labels = (0..n).map(|_| 3 * rng.below(spec.vertex_labels as u64) as u32).collect();
    let hubs = (n / 50).max(1);
    let edges = (0..spec.edges)
        .map(|_| {
            let u = if rng.below(4) == 0 { rng.below(hubs) } else { rng.below(n) };
            let v = rng.below(n);
            (u as u32, v as u32, 3 * rng.below(spec.edge_labels as u64) as u32)
        })
        .collect();
    GraphBuilder::from_parts(labels, edges, spec.directed).build().0
}
