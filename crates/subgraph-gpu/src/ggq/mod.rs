//! GGQ's tree-pattern queries on the GPU (seeds/004, `../shared/papers/gpsm-ggq.md` Part B),
//! over a plain CSR of the data graph per direction with each edge's label (uploaded once per
//! data graph). Two ways:
//! - counted without enumeration (`passes.cu`, here): the passes of `subgraph_core::tree` from
//!   the leaves to the root, one launch per query vertex and one warp per data vertex. Counts
//!   are u64 on the device; where one saturates, the count is taken again on the CPU in 128
//!   bits.
//! - enumerated, GGQ's own algorithm ([`ids`]): one thread per candidate match, its number the
//!   mixed-radix choice of an edge per tree edge, over per-label edge streams.

mod csr;
pub mod ids;

use std::time::Instant;

use subgraph_core::sink::Control;
use subgraph_core::tree::{TreeCount, TreeQuery};
use subgraph_core::{Dir, Graph};
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, Kernel, KernelDecl, KernelSource, Param};

use crate::error::{to_u32, Result};
use crate::ggq::csr::Csr;
use crate::ggq::ids::{Ask, IdPlan, IdRun, Streams};
use crate::gsi::filter::device_words;

use Param::{BufU32 as B32, BufU64 as B64, U32};

/// The kernel of `passes.cu`.
pub static SOURCE: KernelSource = KernelSource {
    name: "ggq/passes.cu",
    code: include_str!("passes.cu"),
    kernels: &[KernelDecl {
        name: "ggq_pass",
        params: &[B32, U32, B64, B32, B32, B64, B32, B32, U32, B32, U32, B32, U32, B64, B64, B32],
    }],
};

const BLOCK: u32 = 256;
/// Any label (`G_ANY`).
const ANY: u32 = u32::MAX;

/// The data graph as the tree passes read it (beside its vertex labels, which the engine
/// holds), and their kernel.
pub struct TreeGraph {
    pass: Kernel,
    out: Csr,
    /// In-adjacency of a directed graph.
    inn: Option<Csr>,
    /// The enumeration's kernels and per-label streams, made on its first use.
    streams: Streams,
}

impl TreeGraph {
    pub fn upload(gpu: &Gpu, data: &Graph) -> Result<TreeGraph> {
        Ok(TreeGraph {
            pass: gpu.kernel(&SOURCE, "ggq_pass")?,
            out: Csr::upload(gpu, data, Dir::Out)?,
            inn: if data.is_directed() { Some(Csr::upload(gpu, data, Dir::In)?) } else { None },
            streams: Streams::default(),
        })
    }
}

/// What the device's passes found, and how long they took.
#[derive(Debug, Clone)]
pub struct GpuTreeCount {
    pub count: TreeCount,
    /// The device's counts saturated, and the CPU counted again.
    pub recounted: bool,
    /// The data graph's layout uploaded for this count (0 where an earlier one did).
    pub upload_ms: f64,
    pub ms: f64,
}

/// Counts `tree`'s homomorphisms in `data` on the device (`g` uploaded from `data`, `labels`
/// its vertex labels); None when `control` stopped it between two passes.
pub fn count(
    gpu: &Gpu,
    g: &TreeGraph,
    labels: &DeviceBuffer<u32>,
    data: &Graph,
    tree: &TreeQuery,
    control: &Control,
) -> Result<Option<GpuTreeCount>> {
    let start = Instant::now();
    let n = data.num_vertices();
    let n32 = to_u32("data vertices", n as u64)?;
    let blocks = to_u32("tree pass blocks", (n as u64 * 32).div_ceil(BLOCK as u64))?;
    // One row of counts per query vertex, in the order they pass.
    let q = tree.len();
    let mut row = vec![0u32; q];
    for (i, &u) in tree.order.iter().rev().enumerate() {
        row[u as usize] = i as u32;
    }
    let mut counts = gpu.alloc_zeros::<u64>("tree counts", q * n)?;
    let mut overflow = gpu.alloc_zeros::<u32>("tree overflow", 1)?;
    let mut part = gpu.alloc_zeros::<u64>("tree pass counts", n)?;
    let inn = g.inn.as_ref().unwrap_or(&g.out);
    for &u in tree.order.iter().rev() {
        if control.should_stop() {
            return Ok(None);
        }
        let children: Vec<u32> = tree
            .children(u)
            .flat_map(|(c, link)| [u32::from(link.dir == Dir::In), link.label.unwrap_or(ANY), row[c as usize], 0])
            .collect();
        let nchildren = (children.len() / 4) as u32;
        let children = gpu.upload("tree children", if children.is_empty() { &[0u32][..] } else { &children })?;
        let words = n.div_ceil(32).max(1);
        let allowed: Vec<u32> = match &tree.allowed[u as usize] {
            Some(set) => device_words(set, words).collect(),
            None => vec![0],
        };
        let restricted = u32::from(tree.allowed[u as usize].is_some());
        let allowed = gpu.upload("tree allowed vertices", &allowed)?;
        gpu.launch(
            &g.pass,
            blocks,
            BLOCK,
            &mut [
                Arg::In32(labels),
                Arg::U32(n32),
                Arg::In64(&g.out.off),
                Arg::In32(&g.out.nbr),
                Arg::In32(&g.out.label),
                Arg::In64(&inn.off),
                Arg::In32(&inn.nbr),
                Arg::In32(&inn.label),
                Arg::U32(tree.labels[u as usize].unwrap_or(ANY)),
                Arg::In32(&allowed),
                Arg::U32(restricted),
                Arg::In32(&children),
                Arg::U32(nchildren),
                Arg::In64(&counts),
                Arg::Out64(&mut part),
                Arg::Out32(&mut overflow),
            ],
        )?;
        gpu.copy(&part, 0, &mut counts, row[u as usize] as usize * n, n)?;
    }
    let root = gpu.download_range(
        &counts,
        row[tree.root() as usize] as usize * n..(row[tree.root() as usize] as usize + 1) * n,
    )?;
    if gpu.download(&overflow)?[0] != 0 {
        // Saturated on the device: the CPU's 128-bit counts.
        return Ok(tree.count(data, control).map(|count| GpuTreeCount {
            count,
            recounted: true,
            upload_ms: 0.0,
            ms: elapsed(start),
        }));
    }
    let total = root.iter().map(|&c| c as u128).sum();
    let roots = (0..n as u32).filter(|&v| root[v as usize] > 0).collect();
    Ok(Some(GpuTreeCount {
        count: TreeCount { total: Some(total), roots },
        recounted: false,
        upload_ms: 0.0,
        ms: elapsed(start),
    }))
}

/// Enumerates `tree`'s matches on `data` by GGQ's thread IDs on `plan` ([`ids`]; `g` uploaded
/// from `data`, `labels` its vertex labels), as `ask` says, handing each batch of rows
/// (`ask.columns.len()` words a row) to `sink` with their number (rows of no columns are empty).
#[allow(clippy::too_many_arguments)]
pub fn enumerate(
    gpu: &Gpu,
    g: &mut TreeGraph,
    labels: &DeviceBuffer<u32>,
    data: &Graph,
    tree: &TreeQuery,
    plan: &IdPlan,
    ask: &Ask,
    control: &Control,
    sink: &mut dyn FnMut(&[u32], u64),
) -> Result<IdRun> {
    ids::enumerate(gpu, &mut g.streams, &g.out, g.inn.as_ref(), labels, data, tree, plan, ask, control, sink)
}

fn elapsed(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}
