//! The 512-bit vertex signature of GSI §III-A (filtering) and its column-major table (Fig. 8):
//! word 0 holds the vertex label exactly (compared by equality, the single-label "store the
//! label directly" strategy of GSI §VII-B; the released code's one-hot hash admits wrong-label
//! candidates); words 1..16 hold 240 two-bit saturating counters (00 none, 01 one, 11 more)
//! over the (edge label, neighbour label[, direction]) pairs of the vertex's edges, each pair
//! hashed with MurmurHash2 (seed 17) to one counter.

use rayon::prelude::*;
use subgraph_core::{Dir, Graph};
use subgraph_cuda::{DeviceBuffer, Gpu};

use crate::error::{GpuError, Result};
use crate::gsi::hash::{murmur2, SEED};

/// u32 words per signature (512 bits).
pub const WORDS: usize = 16;
/// Two-bit counters in words 1..16.
pub const COUNTERS: usize = 240;
/// Counters per word.
const COUNTERS_PER_WORD: usize = 16;
/// Vertices per parallel piece of [`SignatureTable::build`].
const BUILD_BLOCK: usize = 4096;

/// The counter a (edge label, neighbour label) pair of direction `dir` hashes to. The key is
/// the 9 bytes neighbour label, edge label (little endian) and a direction byte (0 for
/// out-edges and all edges of undirected graphs, 1 for in-edges), so direction survives
/// labels equal to 0 (the released code negates the edge label, which does not).
pub fn counter_of(edge_label: u32, nbr_label: u32, dir: Dir) -> usize {
    let mut key = [0u8; 9];
    key[..4].copy_from_slice(&nbr_label.to_le_bytes());
    key[4..8].copy_from_slice(&edge_label.to_le_bytes());
    key[8] = u8::from(dir == Dir::In);
    (murmur2(&key, SEED) % COUNTERS as u32) as usize
}

/// One vertex signature, row-major.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature(pub [u32; WORDS]);

impl Signature {
    /// The signature of vertex `v` of `graph` (data or query graph alike).
    pub fn of_vertex(graph: &Graph, v: u32) -> Self {
        Self::with_positions(graph, v, &PairCounters::new(graph))
    }

    fn with_positions(graph: &Graph, v: u32, counters: &PairCounters) -> Self {
        let mut counts = [0u32; COUNTERS];
        for (dir, table) in counters.dirs() {
            for (pair, nbrs) in graph.neighbor_groups(v, dir) {
                let c = &mut counts[table[pair as usize]];
                *c = c.saturating_add(nbrs.len() as u32);
            }
        }
        let mut words = [0u32; WORDS];
        words[0] = graph.label(v);
        for (pos, &count) in counts.iter().enumerate() {
            let state = match count {
                0 => 0b00,
                1 => 0b01,
                _ => 0b11,
            };
            words[1 + pos / COUNTERS_PER_WORD] |= state << (2 * (pos % COUNTERS_PER_WORD));
        }
        Signature(words)
    }

    /// The vertex label.
    pub fn label(&self) -> u32 {
        self.0[0]
    }

    /// The state of counter `pos`: 0 (no pair), 1 (one pair) or 3 (more than one).
    pub fn counter(&self, pos: usize) -> u32 {
        (self.0[1 + pos / COUNTERS_PER_WORD] >> (2 * (pos % COUNTERS_PER_WORD))) & 0b11
    }

    /// The signature with every counter capped at one (`11` becomes `01`): what a query vertex
    /// needs of a data vertex under homomorphism, where query neighbours may share a data vertex.
    pub fn at_most_one(&self) -> Signature {
        let mut words = self.0;
        words[1..].iter_mut().for_each(|w| *w &= 0x5555_5555);
        Signature(words)
    }

    /// Whether a data vertex with this signature may match a query vertex with signature
    /// `query`: equal labels and every counter bit of `query` set here (GSI's pruning rule
    /// S(v) & S(u) == S(u) on words 1..16).
    pub fn admits(&self, query: &Signature) -> bool {
        self.0[0] == query.0[0] && (1..WORDS).all(|k| self.0[k] & query.0[k] == query.0[k])
    }
}

/// The counter of every pair id of a graph, per stored direction.
struct PairCounters {
    out: Vec<usize>,
    inc: Option<Vec<usize>>,
}

impl PairCounters {
    fn new(graph: &Graph) -> Self {
        let table = |dir| {
            (0..graph.num_pairs() as u32)
                .map(|p| {
                    let (el, nl) = graph.pair(p);
                    counter_of(el, nl, dir)
                })
                .collect()
        };
        PairCounters { out: table(Dir::Out), inc: graph.is_directed().then(|| table(Dir::In)) }
    }

    fn dirs(&self) -> impl Iterator<Item = (Dir, &[usize])> {
        std::iter::once((Dir::Out, &self.out[..])).chain(self.inc.as_deref().map(|t| (Dir::In, t)))
    }
}

/// The signatures of all vertices of a graph, column-major: word k of vertex i at
/// `k * num_vertices + i`, so a warp reading word k of 32 consecutive vertices coalesces.
#[derive(Debug, Clone)]
pub struct SignatureTable {
    num_vertices: usize,
    words: Vec<u32>,
}

impl SignatureTable {
    /// The table of every vertex of `graph` (offline in GSI).
    pub fn build(graph: &Graph) -> Result<Self> {
        let n = graph.num_vertices();
        if n >= u32::MAX as usize {
            return Err(GpuError::TooLarge { what: "signature table", len: n as u64, max: u32::MAX as u64 - 1 });
        }
        let counters = PairCounters::new(graph);
        let mut words = vec![0u32; WORDS * n];
        // Vertex block b owns rows [b * BUILD_BLOCK, ...) of every column: gather those pieces
        // per block, so blocks fill their pieces of the column-major table in parallel.
        let mut blocks: Vec<Vec<&mut [u32]>> = (0..n.div_ceil(BUILD_BLOCK)).map(|_| Vec::new()).collect();
        for column in words.chunks_mut(n.max(1)) {
            for (b, piece) in column.chunks_mut(BUILD_BLOCK).enumerate() {
                blocks[b].push(piece);
            }
        }
        blocks.into_par_iter().enumerate().for_each(|(b, mut pieces)| {
            for i in 0..pieces[0].len() {
                let sig = Signature::with_positions(graph, (b * BUILD_BLOCK + i) as u32, &counters);
                for (k, &w) in sig.0.iter().enumerate() {
                    pieces[k][i] = w;
                }
            }
        });
        Ok(SignatureTable { num_vertices: n, words })
    }

    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// The column-major words.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The signature of vertex `v`.
    pub fn get(&self, v: u32) -> Signature {
        let mut sig = [0u32; WORDS];
        for (k, w) in sig.iter_mut().enumerate() {
            *w = self.words[k * self.num_vertices + v as usize];
        }
        Signature(sig)
    }

    /// The column-major words of the vertices `ids` (a vertex segment of SGSI §6.1): each
    /// column's words of them, one column after another.
    pub fn rows(&self, ids: &[u32]) -> Vec<u32> {
        let n = self.num_vertices;
        (0..WORDS).flat_map(|c| ids.iter().map(move |&v| self.words[c * n + v as usize])).collect()
    }

    /// Copies the table to the device.
    pub fn upload(&self, gpu: &Gpu) -> Result<DeviceSignatureTable> {
        Ok(DeviceSignatureTable {
            words: gpu.upload("signature table", &self.words)?,
            num_vertices: self.num_vertices as u32,
        })
    }
}

/// A signature table on the device.
pub struct DeviceSignatureTable {
    pub words: DeviceBuffer<u32>,
    pub num_vertices: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::{random_graph, GraphSpec};
    use subgraph_core::GraphBuilder;

    fn graph(directed: bool, labels: &[u32], edges: &[(u32, u32, u32)]) -> Graph {
        GraphBuilder::from_parts(labels.to_vec(), edges.to_vec(), directed).build().0
    }

    #[test]
    fn counters_saturate_and_label_is_exact() {
        // Vertex 0: two (5, 1) neighbours, one (5, 2) neighbour.
        let g = graph(false, &[9, 1, 1, 2], &[(0, 1, 5), (0, 2, 5), (0, 3, 5)]);
        let s = Signature::of_vertex(&g, 0);
        assert_eq!(s.label(), 9);
        let two = counter_of(5, 1, Dir::Out);
        let one = counter_of(5, 2, Dir::Out);
        assert_ne!(two, one, "pick labels whose pairs do not collide");
        assert_eq!(s.counter(two), 3);
        assert_eq!(s.counter(one), 1);
        let set = (0..COUNTERS).filter(|&p| s.counter(p) != 0).count();
        assert_eq!(set, 2);
        assert_eq!(Signature::of_vertex(&g, 1).counter(counter_of(5, 9, Dir::Out)), 1);
    }

    #[test]
    fn direction_is_part_of_the_key() {
        let g = graph(true, &[0, 0], &[(0, 1, 0)]);
        let out = Signature::of_vertex(&g, 0);
        let inc = Signature::of_vertex(&g, 1);
        assert_eq!(out.counter(counter_of(0, 0, Dir::Out)), 1);
        assert_eq!(inc.counter(counter_of(0, 0, Dir::In)), 1);
        assert_ne!(counter_of(0, 0, Dir::Out), counter_of(0, 0, Dir::In));
        assert!(!out.admits(&inc) && !inc.admits(&out));
    }

    #[test]
    fn capped_counters_admit_shared_neighbours() {
        // Under homomorphism a star a-b, a-b maps onto the single edge a-b.
        let data = Signature::of_vertex(&graph(false, &[1, 2], &[(0, 1, 0)]), 0);
        let star = Signature::of_vertex(&graph(false, &[1, 2, 2], &[(0, 1, 0), (0, 2, 0)]), 0);
        assert_eq!(star.counter(counter_of(0, 2, Dir::Out)), 3);
        assert!(!data.admits(&star));
        let capped = star.at_most_one();
        assert_eq!(capped.counter(counter_of(0, 2, Dir::Out)), 1);
        assert_eq!(capped.label(), 1);
        assert!(data.admits(&capped));
    }

    #[test]
    fn admits_needs_equal_labels_and_contained_counters() {
        let data = graph(false, &[1, 2, 2, 3], &[(0, 1, 0), (0, 2, 0), (0, 3, 4)]);
        let v = Signature::of_vertex(&data, 0);
        // One (0, 2) neighbour: contained in two.
        let q1 = Signature::of_vertex(&graph(false, &[1, 2], &[(0, 1, 0)]), 0);
        assert!(v.admits(&q1));
        // Same structure, other label: rejected although all counters are contained.
        let q2 = Signature::of_vertex(&graph(false, &[4, 2], &[(0, 1, 0)]), 0);
        assert!(!v.admits(&q2));
        // Two (4, 3) neighbours need counter state 11; v has one.
        let q3 = Signature::of_vertex(&graph(false, &[1, 3, 3], &[(0, 1, 4), (0, 2, 4)]), 0);
        assert!(!v.admits(&q3));
    }

    /// A vertex segment's words are its vertices' signatures, column by column, in the order
    /// listed.
    #[test]
    fn rows_are_the_listed_vertices_column_major() {
        let g = random_graph(&GraphSpec {
            vertices: 100,
            edges: 400,
            vertex_labels: 3,
            edge_labels: 2,
            directed: true,
            seed: 4,
        });
        let table = SignatureTable::build(&g).unwrap();
        let ids = [7u32, 3, 99, 0, 42];
        let rows = table.rows(&ids);
        assert_eq!(rows.len(), WORDS * ids.len());
        for (i, &v) in ids.iter().enumerate() {
            let sig = table.get(v);
            for c in 0..WORDS {
                assert_eq!(rows[c * ids.len() + i], sig.0[c], "vertex {v}, word {c}");
            }
        }
    }

    #[test]
    fn table_is_column_major_and_sound() {
        for directed in [false, true] {
            let g = random_graph(&GraphSpec {
                vertices: 300,
                edges: 1500,
                vertex_labels: 4,
                edge_labels: 3,
                directed,
                seed: 11,
            });
            let table = SignatureTable::build(&g).unwrap();
            let n = g.num_vertices();
            assert_eq!(table.words().len(), WORDS * n);
            // Several build blocks, the last one partial.
            let big = random_graph(&GraphSpec {
                vertices: 2 * BUILD_BLOCK + 100,
                edges: 40_000,
                vertex_labels: 4,
                edge_labels: 2,
                directed,
                seed: 12,
            });
            let big_table = SignatureTable::build(&big).unwrap();
            assert!((0..big.num_vertices() as u32).all(|v| big_table.get(v) == Signature::of_vertex(&big, v)));
            for v in 0..n as u32 {
                let sig = Signature::of_vertex(&g, v);
                assert_eq!(table.get(v), sig);
                assert_eq!(table.words()[n + v as usize], sig.0[1]);
                // Every vertex admits itself, and a signature built from a subset of its
                // edges (a query vertex it matches).
                assert!(sig.admits(&sig));
                let sub: Vec<(u32, u32, u32)> =
                    g.edges().filter(|&(a, b, _)| (a == v || b == v) && (a + b) % 2 == 0).collect();
                let sub_graph = graph(directed, g.labels(), &sub);
                assert!(sig.admits(&Signature::of_vertex(&sub_graph, v)));
            }
        }
    }
}
