//! FSIG's candidate refinement on the device (Yu's thesis §5.4, Alg. 7), run after GSI's
//! signature filter (§III-A): rounds of edge consistency over the candidate bitsets, each a
//! Jacobi step (read the round's bitsets, clear removals in a copy), then each C(u) compacted
//! to its survivors by a scan and a scatter. At most [`ROUNDS`] rounds (FSIG's t_max), fewer
//! when a round removes nothing.

use subgraph_core::{Dir, Query};

use crate::cuda::{Arg, DeviceBuffer, Gpu, Kernel, KernelDecl, KernelSource, Param};
use crate::error::{GpuError, Result};
use crate::filter::DeviceCandidates;
use crate::scan::exclusive_scan;

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// FSIG's default number of refinement rounds (t_max).
pub const ROUNDS: usize = 3;
/// Threads per block of the refinement kernels.
const BLOCK: u32 = 256;

/// The kernels of `refine.cu` (compiled after `pcsr.cu` and `slices.cu`, whose lookups they call).
pub static SOURCE: KernelSource = KernelSource {
    name: "refine.cu",
    code: concat!(include_str!("pcsr.cu"), "\n", include_str!("slices.cu"), "\n", include_str!("refine.cu")),
    kernels: &[
        KernelDecl {
            name: "refine_check",
            params: &[B32, B64, B32, B32, B32, B64, B32, U32, U32, B32, U32, B32, U64, B32, U32, B32, U64],
        },
        KernelDecl { name: "refine_flags", params: &[B32, U32, B32, U64, B32] },
        KernelDecl { name: "refine_scatter", params: &[B32, U32, B32, B64, B32] },
    ],
};

/// The kernels of `refine.cu`, loaded once.
pub struct RefineKernels {
    check: Kernel,
    flags: Kernel,
    scatter: Kernel,
}

impl RefineKernels {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(RefineKernels {
            check: gpu.kernel(&SOURCE, "refine_check")?,
            flags: gpu.kernel(&SOURCE, "refine_flags")?,
            scatter: gpu.kernel(&SOURCE, "refine_scatter")?,
        })
    }
}

/// The query edges of u as `refine_check` reads them: (u', structure, edge label, L(u')) per
/// edge, `structure(dir, edge label)` giving the index of N(·, dir, edge label) on the device.
pub fn links_of(q: &Query, u: u32, structure: impl Fn(Dir, u32) -> u32) -> Vec<u32> {
    q.edges(u).iter().flat_map(|e| [e.to, structure(e.dir, e.label), e.label, q.label(e.to)]).collect()
}

fn to_u32(what: &'static str, n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| GpuError::TooLarge { what, len: n as u64, max: u32::MAX as u64 })
}

/// Refines `cands` (C(u) of every query vertex u, list and bitset) in place.
/// `links[u]` is [`links_of`] u, uploaded; `graph()` makes the nine data-graph arguments every
/// kernel of `slices.cu` starts with. Stops early when some C(u) becomes empty.
pub fn refine<'g>(
    gpu: &Gpu,
    k: &RefineKernels,
    graph: &dyn Fn() -> Vec<Arg<'g>>,
    links: &[DeviceBuffer<u32>],
    cands: &mut [DeviceCandidates],
) -> Result<()> {
    let qn = cands.len();
    let words = cands.first().map_or(0, |c| c.bitset.len());
    let mut bits = gpu.alloc_zeros::<u32>("refinement bitsets", qn * words)?;
    for (u, c) in cands.iter().enumerate() {
        gpu.copy(&c.bitset, 0, &mut bits, u * words, words)?;
    }
    for _ in 0..ROUNDS {
        let mut next = gpu.alloc_zeros::<u32>("refinement bitsets", qn * words)?;
        gpu.copy(&bits, 0, &mut next, 0, qn * words)?;
        for (u, c) in cands.iter().enumerate() {
            let n = c.vertices.len();
            let blocks = to_u32("refined candidates", n.div_ceil((BLOCK / 32) as usize))?;
            let mut args = graph();
            args.extend([
                Arg::In32(&links[u]),
                Arg::U32(to_u32("query edges", links[u].len() / 4)?),
                Arg::In32(&bits),
                Arg::U64(words as u64),
                Arg::In32(&c.vertices),
                Arg::U32(to_u32("refined candidates", n)?),
                Arg::Out32(&mut next),
                Arg::U64((u * words) as u64),
            ]);
            gpu.launch(&k.check, blocks, BLOCK, &mut args)?;
        }
        bits = next;
        let mut changed = false;
        for (u, c) in cands.iter_mut().enumerate() {
            let n = to_u32("refined candidates", c.vertices.len())?;
            let blocks = n.div_ceil(BLOCK);
            let mut flags = gpu.alloc_zeros::<u32>("refinement flags", n as usize)?;
            gpu.launch(
                &k.flags,
                blocks,
                BLOCK,
                &mut [
                    Arg::In32(&c.vertices),
                    Arg::U32(n),
                    Arg::In32(&bits),
                    Arg::U64((u * words) as u64),
                    Arg::Out32(&mut flags),
                ],
            )?;
            let (offsets, kept) = exclusive_scan(gpu, &flags)?;
            if kept < n as u64 {
                changed = true;
                let mut out = gpu.alloc_zeros::<u32>("refined candidates", kept as usize)?;
                gpu.launch(
                    &k.scatter,
                    blocks,
                    BLOCK,
                    &mut [
                        Arg::In32(&c.vertices),
                        Arg::U32(n),
                        Arg::In32(&flags),
                        Arg::In64(&offsets),
                        Arg::Out32(&mut out),
                    ],
                )?;
                c.vertices = out;
            }
        }
        if !changed || cands.iter().any(|c| c.vertices.is_empty()) {
            break;
        }
    }
    for (u, c) in cands.iter_mut().enumerate() {
        gpu.copy(&bits, u * words, &mut c.bitset, 0, words)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::{Graph, GraphBuilder, Semantics};

    fn graph(labels: &[u32], edges: &[(u32, u32, u32)]) -> Graph {
        GraphBuilder::from_parts(labels.to_vec(), edges.to_vec(), true).build().0
    }

    #[test]
    fn links_name_every_query_edge_from_its_end() {
        // Directed query 0 -(5)-> 1, 2 -(6)-> 0, labels 7, 8, 9.
        let data = graph(&[7, 8, 9], &[(0, 1, 5), (2, 0, 6)]);
        let q = Query::new(graph(&[7, 8, 9], &[(0, 1, 5), (2, 0, 6)]), &data, Semantics::Embed).unwrap();
        let index = |dir: Dir, label: u32| 10 * u32::from(dir == Dir::In) + label;
        let mut l0: Vec<[u32; 4]> = links_of(&q, 0, index).chunks(4).map(|c| c.try_into().unwrap()).collect();
        l0.sort();
        assert_eq!(l0, vec![[1, 5, 5, 8], [2, 16, 6, 9]]);
        assert_eq!(links_of(&q, 1, index), vec![0, 15, 5, 7]);
        assert_eq!(links_of(&q, 2, index), vec![0, 6, 6, 7]);
    }
}
