//! GSI filtering (§III-A): the candidates C(u) of a query vertex u are the data vertices whose
//! signature admits u's (exact label, contained counters). On the device (`filter.cu`) one
//! thread per data vertex writes a flag and the candidate bitset, an exclusive scan of the
//! flags gives the write positions, and a scatter writes C(u) sorted by id. The host
//! reference computes the same sets for tests.

use crate::cuda::{Arg, DeviceBuffer, Gpu, KernelDecl, KernelSource, Param};
use crate::error::Result;
use crate::scan::exclusive_scan;
use crate::signature::{DeviceSignatureTable, Signature, SignatureTable, WORDS};

/// The kernels of `filter.cu`.
pub static SOURCE: KernelSource = KernelSource {
    name: "filter.cu",
    code: include_str!("filter.cu"),
    kernels: &[
        KernelDecl {
            name: "filter_flags",
            params: &[Param::BufU32, Param::U32, Param::BufU32, Param::BufU32, Param::BufU32],
        },
        KernelDecl { name: "filter_scatter", params: &[Param::BufU32, Param::U32, Param::BufU64, Param::BufU32] },
    ],
};

const BLOCK: u32 = 1024;

/// C(u) on the host: the candidates sorted by id and the |V|-bit bitset (word v / 32, bit
/// v % 32) of the same set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidates {
    pub vertices: Vec<u32>,
    pub bitset: Vec<u32>,
}

impl Candidates {
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// Membership through the bitset, as the join tests it.
    pub fn contains(&self, v: u32) -> bool {
        self.bitset.get(v as usize / 32).is_some_and(|w| w >> (v % 32) & 1 == 1)
    }
}

/// Number of bitset words for `n` vertices.
fn bitset_words(n: usize) -> usize {
    n.div_ceil(32)
}

/// The host reference of [`filter_on_device`].
pub fn filter_host(table: &SignatureTable, query: &Signature) -> Candidates {
    let n = table.num_vertices();
    let vertices: Vec<u32> = (0..n as u32).filter(|&v| table.get(v).admits(query)).collect();
    let mut bitset = vec![0u32; bitset_words(n)];
    for &v in &vertices {
        bitset[v as usize / 32] |= 1 << (v % 32);
    }
    Candidates { vertices, bitset }
}

/// C(u) on the device.
pub struct DeviceCandidates {
    pub vertices: DeviceBuffer<u32>,
    pub bitset: DeviceBuffer<u32>,
}

impl DeviceCandidates {
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// A host copy.
    pub fn to_host(&self, gpu: &Gpu) -> Result<Candidates> {
        Ok(Candidates { vertices: gpu.download(&self.vertices)?, bitset: gpu.download(&self.bitset)? })
    }
}

/// C(u) for the query vertex with signature `query`, computed on the device from `table`.
pub fn filter_on_device(gpu: &Gpu, table: &DeviceSignatureTable, query: &Signature) -> Result<DeviceCandidates> {
    let n = table.num_vertices;
    let flags_kernel = gpu.kernel(&SOURCE, "filter_flags")?;
    let scatter_kernel = gpu.kernel(&SOURCE, "filter_scatter")?;
    let query_words = gpu.upload("query signature", &query.0[..WORDS])?;
    let mut flags = gpu.alloc_zeros::<u32>("filter flags", n as usize)?;
    let mut bitset = gpu.alloc_zeros::<u32>("candidate bitset", bitset_words(n as usize))?;
    let grid = n.div_ceil(BLOCK);
    gpu.launch(
        &flags_kernel,
        grid,
        BLOCK,
        &mut [
            Arg::In32(&table.words),
            Arg::U32(n),
            Arg::In32(&query_words),
            Arg::Out32(&mut flags),
            Arg::Out32(&mut bitset),
        ],
    )?;
    let (offsets, total) = exclusive_scan(gpu, &flags)?;
    let mut vertices = gpu.alloc_zeros::<u32>("candidates", total as usize)?;
    gpu.launch(
        &scatter_kernel,
        grid,
        BLOCK,
        &mut [Arg::In32(&flags), Arg::U32(n), Arg::In64(&offsets), Arg::Out32(&mut vertices)],
    )?;
    Ok(DeviceCandidates { vertices, bitset })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::{random_graph, GraphSpec};

    #[test]
    fn host_filter_keeps_exactly_the_admitting_vertices() {
        let g = random_graph(&GraphSpec {
            vertices: 500,
            edges: 2500,
            vertex_labels: 5,
            edge_labels: 3,
            directed: false,
            seed: 5,
        });
        let table = SignatureTable::build(&g).unwrap();
        for u in (0..500u32).step_by(37) {
            let q = Signature::of_vertex(&g, u);
            let c = filter_host(&table, &q);
            assert!(c.contains(u), "a vertex is its own candidate");
            assert!(c.vertices.windows(2).all(|w| w[0] < w[1]));
            for v in 0..500u32 {
                assert_eq!(c.contains(v), table.get(v).admits(&q));
                assert_eq!(c.vertices.binary_search(&v).is_ok(), c.contains(v));
                if c.contains(v) {
                    assert_eq!(g.label(v), g.label(u));
                }
            }
        }
    }
}
