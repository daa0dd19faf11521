//! FSIG's candidate refinement on the device (Yu's thesis §5.4, Alg. 7), run after GSI's
//! signature filter (§III-A): rounds of edge consistency over the candidate bitsets, each a
//! Jacobi step (read the round's bitsets, clear removals in a copy) over all query vertices'
//! concatenated candidate lists in one launch, then the lists compacted to their survivors by
//! one scan and scatter. At most [`ROUNDS`] rounds (FSIG's t_max), fewer when a round removes
//! nothing.

use subgraph_core::{Dir, Query};
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, Kernel, KernelDecl, KernelSource, Param};

use crate::device::GpuDevice;
use crate::error::{to_u32, Result};
use crate::gsi::filter::DeviceCandidateSet;
use crate::options::Structure;
use crate::partition::Key;
use crate::shared::levels::structure_index;
use crate::shared::scan::{exclusive_scan, list_starts};

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// FSIG's default number of refinement rounds (t_max).
pub const ROUNDS: usize = 3;
/// Threads per block of the refinement kernels.
const BLOCK: u32 = 256;

/// The kernels of `refine.cu` (compiled after `pcsr.cu` and `slices.cu`, whose lookups they call).
pub static SOURCE: KernelSource = KernelSource {
    name: "refine.cu",
    code: concat!(
        include_str!("../gsi/pcsr.cu"),
        "\n",
        include_str!("../shared/slices.cu"),
        "\n",
        include_str!("refine.cu")
    ),
    kernels: &[
        KernelDecl {
            name: "refine_check",
            params: &[B32, B64, B32, B32, B32, B64, B32, U32, U32, B32, B32, B32, U64, B32, B64, U32, B32],
        },
        KernelDecl { name: "refine_flags", params: &[B32, B64, U32, B32, U64, B32] },
        KernelDecl { name: "refine_scatter", params: &[B32, U64, B32, B64, B32] },
        KernelDecl {
            name: "refine_seen",
            params: &[
                B32, B64, B32, B32, B32, B64, B32, U32, U32, B32, B32, B32, U64, B32, B64, U32, B64, U32, U32, U32, U32,
            ],
        },
        KernelDecl { name: "refine_unseen", params: &[B32, B64, U32, B32, B64, U64, B32] },
    ],
};

/// The kernels of `refine.cu`, loaded once.
pub struct RefineKernels {
    check: Kernel,
    flags: Kernel,
    scatter: Kernel,
    seen: Kernel,
    unseen: Kernel,
}

impl RefineKernels {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(RefineKernels {
            check: gpu.kernel(&SOURCE, "refine_check")?,
            flags: gpu.kernel(&SOURCE, "refine_flags")?,
            scatter: gpu.kernel(&SOURCE, "refine_scatter")?,
            seen: gpu.kernel(&SOURCE, "refine_seen")?,
            unseen: gpu.kernel(&SOURCE, "refine_unseen")?,
        })
    }
}

/// The query edges of u as `refine_check` reads them: (u', structure, edge label, L(u')) per
/// edge, `structure(dir, edge label)` giving the index of N(·, dir, edge label) on the device.
pub fn links_of(q: &Query, u: u32, structure: impl Fn(Dir, u32) -> u32) -> Vec<u32> {
    q.edges(u).iter().flat_map(|e| [e.to, structure(e.dir, e.label), e.label, q.label(e.to)]).collect()
}

/// Where each list starts in the concatenation of lists of these lengths, and the total last.
fn starts(lens: impl Iterator<Item = usize>) -> Vec<u64> {
    let mut at = vec![0u64];
    for len in lens {
        at.push(at[at.len() - 1] + len as u64);
    }
    at
}

/// Where the refinement reads the data graph: the nine data-graph arguments every kernel of
/// `slices.cu` starts with.
pub enum Lists<'a, 'g> {
    /// One structure holding every list: makes its arguments.
    Whole(&'a dyn Fn() -> Vec<Arg<'g>>),
    /// A partitioned graph ([`crate::partition`]): calls its argument with each segment's.
    Segments(&'a mut dyn FnMut(&mut SegmentArgs<'_>) -> Result<()>),
}

/// What the refinement does with one segment: its data-graph arguments, and its first and
/// last source as (label, id).
pub type SegmentArgs<'a> = dyn FnMut(Vec<Arg<'_>>, (Key, Key)) -> Result<()> + 'a;

/// Refines `cands` (C(u) of every query vertex u, lists and bitsets) in place, all query
/// vertices in one launch per kernel and round (per segment of a partitioned graph).
/// `links[u]` is [`links_of`] u. Stops early when a round removes nothing or some C(u)
/// becomes empty.
pub fn refine(
    gpu: &Gpu,
    k: &RefineKernels,
    mut graph: Lists<'_, '_>,
    links: &[Vec<u32>],
    cands: &mut DeviceCandidateSet,
) -> Result<()> {
    let qn = cands.num_query_vertices();
    if qn == 0 {
        return Ok(());
    }
    let nq = to_u32("query vertices", qn as u64)?;
    let words = cands.words;
    let link_at: Vec<u32> = starts(links.iter().map(|l| l.len() / 4)).iter().map(|&x| x as u32).collect();
    let links_dev = gpu.upload("query edges", &links.concat())?;
    let link_at_dev = gpu.upload("query edge offsets", &link_at)?;
    for _ in 0..ROUNDS {
        let n = cands.at[qn];
        let at_dev = gpu.upload("candidate offsets", &cands.at)?;
        let mut next = gpu.alloc_zeros::<u32>("refinement bitsets", qn * words)?;
        gpu.copy(&cands.bits, 0, &mut next, 0, qn * words)?;
        let warps = to_u32("refined candidates", n.div_ceil((BLOCK / 32) as u64))?;
        let blocks = to_u32("refined candidates", n.div_ceil(BLOCK as u64))?;
        let checked = || {
            [
                Arg::In32(&links_dev),
                Arg::In32(&link_at_dev),
                Arg::In32(&cands.bits),
                Arg::U64(words as u64),
                Arg::In32(&cands.list),
                Arg::In64(&at_dev),
                Arg::U32(nq),
            ]
        };
        match &mut graph {
            Lists::Whole(args) => {
                let mut args = args();
                args.extend(checked());
                args.push(Arg::Out32(&mut next));
                gpu.launch(&k.check, warps, BLOCK, &mut args)?;
            }
            Lists::Segments(each) => {
                let mut seen = gpu.alloc_zeros::<u64>("refinement edges seen", n as usize)?;
                each(&mut |graph, (first, last)| {
                    let mut args: Vec<Arg<'_>> = graph.into_iter().chain(checked()).collect();
                    args.push(Arg::Out64(&mut seen));
                    args.extend([first.0, first.1, last.0, last.1].map(Arg::U32));
                    Ok(gpu.launch(&k.seen, warps, BLOCK, &mut args)?)
                })?;
                let mut args = [
                    Arg::In32(&cands.list),
                    Arg::In64(&at_dev),
                    Arg::U32(nq),
                    Arg::In32(&link_at_dev),
                    Arg::In64(&seen),
                    Arg::U64(words as u64),
                    Arg::Out32(&mut next),
                ];
                gpu.launch(&k.unseen, blocks, BLOCK, &mut args)?;
            }
        }
        cands.bits = next;
        let mut flags = gpu.alloc_zeros::<u32>("refinement flags", n as usize)?;
        gpu.launch(
            &k.flags,
            blocks,
            BLOCK,
            &mut [
                Arg::In32(&cands.list),
                Arg::In64(&at_dev),
                Arg::U32(nq),
                Arg::In32(&cands.bits),
                Arg::U64(words as u64),
                Arg::Out32(&mut flags),
            ],
        )?;
        let (offsets, kept) = exclusive_scan(gpu, &flags)?;
        if kept == n {
            break;
        }
        let mut kept_list = gpu.alloc_zeros::<u32>("refined candidates", kept as usize)?;
        gpu.launch(
            &k.scatter,
            blocks,
            BLOCK,
            &mut [
                Arg::In32(&cands.list),
                Arg::U64(n),
                Arg::In32(&flags),
                Arg::In64(&offsets),
                Arg::Out32(&mut kept_list),
            ],
        )?;
        cands.list = kept_list;
        cands.at = list_starts(gpu, &offsets, &at_dev)?;
        if cands.any_empty() {
            break;
        }
    }
    Ok(())
}

/// [`refine`] of the signature filter's candidates `cands` of `q` on `dev`, over the join's
/// `structure`: the whole structure, or the segments of a partitioned graph that hold sources of
/// a query vertex's label with an edge of that structure.
pub(crate) fn refine_on(
    dev: &GpuDevice,
    kernels: &RefineKernels,
    q: &Query,
    structure: Structure,
    cands: &mut DeviceCandidateSet,
    dummy64: &DeviceBuffer<u64>,
    dummy32: &DeviceBuffer<u32>,
) -> Result<()> {
    let nverts = dev.data.num_vertices() as u32;
    let index = structure_index(&dev.data, structure);
    let links: Vec<Vec<u32>> = (0..q.num_vertices() as u32).map(|u| links_of(q, u, &index)).collect();
    let (gpu, graph) = (&dev.gpu, &dev.graph);
    let Some(parts) = &graph.partitioned else {
        let graph = graph.args(structure, None, nverts, dummy64, dummy32)?;
        return refine(gpu, kernels, Lists::Whole(&|| graph.args()), &links, cands);
    };
    // A segment is read when it holds sources of a query vertex's label with an edge of
    // its structure.
    let sources: Vec<(u32, u32)> = (0..q.num_vertices() as u32)
        .flat_map(|u| q.edges(u).iter().map(|e| (index(e.dir, e.label), q.label(u))).collect::<Vec<_>>())
        .collect();
    let segs = parts.segments();
    let order: Vec<usize> = (0..segs.len())
        .filter(|&i| sources.iter().any(|&(st, label)| st == segs[i].st && segs[i].holds_label(&[label])))
        .collect();
    let mut segments = |each: &mut SegmentArgs<'_>| {
        parts.each_segment(gpu, &order, &mut |i, st| {
            each(graph.segment_args(st, nverts, dummy64, dummy32).args(), (segs[i].first, segs[i].last))
        })
    };
    refine(gpu, kernels, Lists::Segments(&mut segments), &links, cands)
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::{Graph, GraphBuilder, Semantics};

    fn graph(labels: &[u32], edges: &[(u32, u32, u32)]) -> Graph {
        GraphBuilder::from_parts(labels.to_vec(), edges.to_vec(), true).build().0
    }

    #[test]
    fn starts_of_concatenated_lists() {
        assert_eq!(starts([3, 0, 2].into_iter()), vec![0, 3, 3, 5]);
        assert_eq!(starts(std::iter::empty()), vec![0]);
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
