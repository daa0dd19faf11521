//! FSIG's auxiliary structure A (Yu's thesis ch. 5, `Collect`; `../shared/papers/thesis-fsig.md`
//! §1.5), built for one query's plan on the device and read by GSI's join in place of PCSR
//! (`--gpu-structure aux`, or `auto` for heavy queries; `slices.cu`'s mode 2). For each link of
//! the plan (a query edge from an earlier position `from` to position `pos`, with its direction
//! and edge label), each candidate v of `from` holds the sorted list N(v, dir, edge label) ∩
//! C(pos), taken from PCSR (`fsig.cu`). A slice is then already the position's candidates, so
//! the join's first-link sizes are the thesis' tighter preallocation bound (Eq. 5.5 against
//! GSI's Eq. 5.4), and its intersections and probes run over those shorter lists. All links
//! are built at once: one counting launch, one scan, one writing launch. The lists are keyed by
//! the sorted candidates of `from`, found by binary search (the compressed layout of the public
//! code), where the thesis indexes an offsets array of |V| + 1 entries per link by vertex id.

pub mod refine;

use std::ops::Range;

use subgraph_core::order::Order;
use subgraph_core::pipeline::MatchOptions;
use subgraph_core::plan::Plan;
use subgraph_core::spasm;
use subgraph_core::Query;
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, Kernel, KernelDecl, KernelSource, Param};

use crate::device::GpuDevice;
use crate::error::{to_u32, Result};
use crate::options::{CandidateFilter, DepthFirst, GpuOptions, Structure};
use crate::shared::levels::{structure_index, LevelData};
use crate::shared::scan::exclusive_scan;
use crate::shared::slices::{DeviceStructure, GraphArgs};

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// The kernel of `fsig.cu` (compiled after `pcsr.cu` and `slices.cu`, whose lookups it calls).
pub static SOURCE: KernelSource = KernelSource {
    name: "fsig.cu",
    code: concat!(
        include_str!("../gsi/pcsr.cu"),
        "\n",
        include_str!("../shared/slices.cu"),
        "\n",
        include_str!("fsig.cu")
    ),
    kernels: &[KernelDecl {
        name: "fsig_lists",
        params: &[B32, B64, B32, B32, B32, B64, B32, U32, U32, B32, U64, U64, B64, U32, U32, B64, B32, B32],
    }],
};

/// Threads per block of `fsig_lists` (one warp per key).
const BLOCK: u32 = 256;

/// Predicted join time (the planner's estimate priced for the GPU) from which
/// `--gpu-structure auto` builds A on graphs whose candidates come from the host filter (on the
/// device filter's, it always does). On G3 (H100, bench/results/2026-11-26-gpsm.md) A cost
/// 0.4–0.7 ms to build and was faster than PCSR on all 16 queries, 1.05–2.1× (its sparse_12
/// median 84 → 42 ms). On the Sun & Luo sets' queries of 1–6 ms it was 0.76–1.43× the time of
/// PCSR at the class medians: there the build is a larger share.
pub const AUX_FROM_MS: f64 = 20.0;

/// FSIG's matcher (`--gpu-strategy fsig`, the thesis' Algorithm 6) composed of the engine's
/// parts, wherever the user left a switch on auto: the signature filter with FSIG's neighbour
/// refinement on the device, A for every join, CFL's order over the candidate edges, and the
/// breadth-first join to the last level (no depth-first kernel, no spasm), with the host spill
/// ([`crate::partition::park`]) on its own auto rule and chunks sized by the measured α. Prealloc-Combine
/// over A is the thesis' 1*-phase output: Eq. 5.5's bound, then `join_link`'s extend, in which
/// consecutive threads write consecutive words. Symmetry breaking, which FSIG lacks, stays as
/// `--symmetry` says.
pub fn compose(opts: &MatchOptions, gpu: &GpuOptions) -> (MatchOptions, GpuOptions) {
    let opts = MatchOptions {
        order: opts.order.or(Some(Order::Cfl)),
        spasm: match opts.spasm {
            spasm::Mode::Auto => spasm::Mode::Off,
            other => other,
        },
        ..*opts
    };
    let gpu = GpuOptions {
        filter: match gpu.filter {
            CandidateFilter::Auto => CandidateFilter::Refined,
            other => other,
        },
        structure: match gpu.structure {
            Structure::Auto => Structure::Aux,
            other => other,
        },
        depth_first: match gpu.depth_first {
            DepthFirst::Auto => DepthFirst::Off,
            other => other,
        },
        ..*gpu
    };
    (opts, gpu)
}

/// Compiles and loads the kernel now rather than in the first query that builds A.
pub fn prepare(gpu: &Gpu) -> Result<()> {
    Ok(gpu.kernel(&SOURCE, "fsig_lists").map(drop)?)
}

/// The table of each plan link, numbered over the links position by position: link k of
/// position pos is table `starts[pos] + k` (`starts` has one entry per position, and the
/// number of links last).
pub fn link_starts(plan: &Plan) -> Vec<u32> {
    let mut starts = vec![0u32];
    for links in &plan.backward {
        starts.push(starts[starts.len() - 1] + links.len() as u32);
    }
    starts
}

/// What [`build`] does with one piece of the data graph: launches over its arguments, for the
/// keys (indices over all tables' keys, table by table in [`link_starts`] order) of the
/// windows given, or for every key (None).
pub(crate) type Piece<'a> = dyn FnMut(&GraphArgs<'_>, Option<&[Range<u64>]>) -> Result<()> + 'a;

/// A of `plan` over its uploaded `levels` (each position's sorted candidates and bitset),
/// read from the data graph's structure piece by piece (`pieces` calls its argument with each
/// piece's kernel arguments, in the same order on every call: the whole PCSR in core, the
/// segments of a partitioned graph; `index(dir, edge label)` is a link's structure index), in
/// `slices.cu`'s mode-2 layout: `groups` the keys of every table one after another, `meta`
/// three words per table (its keys' first index in `groups`, their number, where its key
/// offsets start in `meta`) and then the key offsets of all tables (indices into `columns`,
/// one scan over all keys), `columns` the lists.
pub(crate) fn build(
    gpu: &Gpu,
    pieces: &mut dyn FnMut(&mut Piece<'_>) -> Result<()>,
    index: &dyn Fn(subgraph_core::Dir, u32) -> u32,
    plan: &Plan,
    labels: &[u32],
    levels: &[LevelData],
) -> Result<DeviceStructure> {
    let lists: Kernel = gpu.kernel(&SOURCE, "fsig_lists")?;
    let mut tdesc = Vec::new();
    let mut header = Vec::new();
    let mut key_total = 0u64;
    for (pos, links) in plan.backward.iter().enumerate() {
        for l in links {
            let keys = levels[l.from].cands.len() as u64;
            tdesc.extend([
                key_total,
                index(l.dir, l.edge_label) as u64,
                l.edge_label as u64,
                labels[pos] as u64,
                levels[pos].bitset.device_address(),
            ]);
            header.extend([key_total, keys, 0]);
            key_total += keys;
        }
    }
    let ntables = header.len() / 3;
    let mut groups = gpu.alloc_zeros::<u32>("A keys", key_total as usize)?;
    for (t, l) in plan.backward.iter().flatten().enumerate() {
        gpu.copy(&levels[l.from].cands, 0, &mut groups, header[3 * t] as usize, header[3 * t + 1] as usize)?;
    }
    let tdesc = gpu.upload("A tables", &tdesc)?;
    let mut pass =
        |write: bool, offsets: &DeviceBuffer<u64>, counts: &mut DeviceBuffer<u32>, values: &mut DeviceBuffer<u32>| {
            pieces(&mut |graph, windows| {
                let all = [Range { start: 0, end: key_total }];
                for w in windows.unwrap_or(&all).iter().filter(|w| !w.is_empty()) {
                    let mut args = graph.args();
                    args.extend([
                        Arg::In32(&groups),
                        Arg::U64(w.start),
                        Arg::U64(w.end),
                        Arg::In64(&tdesc),
                        Arg::U32(ntables as u32),
                        Arg::U32(u32::from(write)),
                        Arg::In64(offsets),
                        Arg::Out32(counts),
                        Arg::Out32(values),
                    ]);
                    gpu.launch(
                        &lists,
                        to_u32("A keys", ((w.end - w.start) * 32).div_ceil(BLOCK as u64))?,
                        BLOCK,
                        &mut args,
                    )?;
                }
                Ok(())
            })
        };
    let none64 = gpu.alloc_zeros::<u64>("placeholder", 1)?;
    let mut none32 = gpu.alloc_zeros::<u32>("placeholder", 1)?;
    let mut counts = gpu.alloc_zeros::<u32>("A counts", key_total as usize)?;
    pass(false, &none64, &mut counts, &mut none32)?;
    let (offsets, total) = exclusive_scan(gpu, &counts)?;
    let mut columns = gpu.alloc_zeros::<u32>("A lists", total as usize)?;
    // The write step's cursor: what each key has written so far.
    let mut cursor = gpu.alloc_zeros::<u32>("A cursors", key_total as usize)?;
    pass(true, &offsets, &mut cursor, &mut columns)?;
    // Every table's key offsets are its stretch of the one scan, after the headers.
    for t in 0..ntables {
        header[3 * t + 2] = (3 * ntables) as u64 + header[3 * t];
    }
    let mut meta = gpu.alloc_zeros::<u64>("A offsets", 3 * ntables + key_total as usize + 1)?;
    gpu.copy(&gpu.upload("A headers", &header)?, 0, &mut meta, 0, header.len())?;
    gpu.copy(&offsets, 0, &mut meta, header.len(), key_total as usize + 1)?;
    Ok(DeviceStructure { groups, meta, columns, elabels: gpu.alloc_zeros::<u32>("placeholder", 1)? })
}

/// FSIG's A of `plan` over its uploaded `levels`, from the resident PCSR, or from the
/// segments of a partitioned graph that hold sources of the plan's links.
pub(crate) fn build_on(
    dev: &GpuDevice,
    plan: &Plan,
    q: &Query,
    levels: &[LevelData],
    dummy64: &DeviceBuffer<u64>,
    dummy32: &DeviceBuffer<u32>,
) -> Result<DeviceStructure> {
    let nverts = dev.data.num_vertices() as u32;
    let labels: Vec<u32> = plan.vertices.iter().map(|&u| q.label(u)).collect();
    let index = structure_index(&dev.data, Structure::Pcsr);
    let graph = &dev.graph;
    let Some(parts) = &graph.partitioned else {
        let base = graph.args(Structure::Pcsr, None, nverts, dummy64, dummy32)?;
        return build(&dev.gpu, &mut |each| each(&base, None), &index, plan, &labels, levels);
    };
    // Each link's structure, its source position's label and candidates (sorted), and
    // where its keys start among all: a segment is read for the candidates it holds lists
    // of.
    let mut start = 0u64;
    let links: Vec<(u32, u32, &[u32], u64)> = plan
        .backward
        .iter()
        .flatten()
        .map(|l| {
            let cands = plan.candidates[l.from].as_slice();
            start += cands.len() as u64;
            (index(l.dir, l.edge_label), labels[l.from], cands, start - cands.len() as u64)
        })
        .collect();
    // Each segment's windows, once for both of A's passes.
    let windows: Vec<Vec<Range<u64>>> = parts
        .segments()
        .iter()
        .map(|seg| {
            links
                .iter()
                .filter(|&&(st, ..)| st == seg.st)
                .map(|&(_, label, cands, start)| {
                    let held = seg.held(label, cands);
                    start + held.start as u64..start + held.end as u64
                })
                .filter(|w| !w.is_empty())
                .collect()
        })
        .collect();
    let order: Vec<usize> = (0..windows.len()).filter(|&i| !windows[i].is_empty()).collect();
    build(
        &dev.gpu,
        &mut |each| {
            parts.each_segment(&dev.gpu, &order, &mut |i, st| {
                each(&graph.segment_args(st, nverts, dummy64, dummy32), Some(&windows[i]))
            })
        },
        &index,
        plan,
        &labels,
        levels,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::plan::PlanOptions;
    use subgraph_core::sink::Control;
    use subgraph_core::{GraphBuilder, Query, Semantics};

    #[test]
    fn links_are_numbered_position_by_position() {
        let g = |n: usize, e: Vec<(u32, u32, u32)>| GraphBuilder::from_parts(vec![0; n], e, false).build().0;
        let data = g(4, vec![(0, 1, 0), (1, 2, 0), (2, 0, 0), (2, 3, 0)]);
        // A triangle with a pendant: four links over the positions, whatever the order.
        let q = Query::new(g(4, vec![(0, 1, 0), (1, 2, 0), (2, 0, 0), (2, 3, 0)]), &data, Semantics::Embed).unwrap();
        let plan = Plan::new(&data, &q, PlanOptions::default(), &Control::unlimited());
        let starts = link_starts(&plan);
        assert_eq!(starts.len(), plan.len() + 1);
        for pos in 0..plan.len() {
            assert_eq!((starts[pos + 1] - starts[pos]) as usize, plan.backward[pos].len());
        }
        assert_eq!(starts[plan.len()], 4);
    }
}
