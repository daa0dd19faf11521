//! The kernels of `gpsm.cu` and what runs before GpSM's join on one device: the filter (Def. 3's
//! check, the exploration along the spanning tree, the refinement rounds) and the candidate-edge
//! table of each query edge (§4.2, by two-step output).

use subgraph_core::{Dir, Graph, Query, Semantics};
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, Kernel, KernelDecl, KernelSource, Param};

use crate::error::{to_u32, Result};
use crate::gpsm::options::GpsmOptions;
use crate::gpsm::plan::{rank, spanning_tree, Edge};
use crate::gsi::device_graph::SortedAdjacency;
use crate::gsi::filter::{device_words, SOURCE as FILTER_SOURCE};
use crate::shared::levels::dir_index;
use crate::shared::scan::{exclusive_scan, list_starts};

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// The kernels of `gpsm.cu` (compiled after `pcsr.cu` and `slices.cu`, whose helpers it uses).
pub static SOURCE: KernelSource = KernelSource {
    name: "gpsm.cu",
    code: concat!(
        include_str!("../gsi/pcsr.cu"),
        "\n",
        include_str!("../shared/slices.cu"),
        "\n",
        include_str!("gpsm.cu")
    ),
    kernels: &[
        KernelDecl { name: "gpsm_check", params: &[B32, B64, U32, U32, B32, U32, U64, B32, B32] },
        KernelDecl { name: "gpsm_popc", params: &[B32, U64, B32] },
        KernelDecl { name: "gpsm_explore", params: &[B64, B32, B32, U32, B32, U64, U32, B32, U32, B32, B32, U64] },
        KernelDecl { name: "gpsm_refine", params: &[B64, B32, B32, U32, B32, B64, U32, B32, B32, B32, U64, B32] },
        KernelDecl {
            name: "gpsm_edges",
            params: &[B64, B32, B32, U32, B32, U64, U32, U32, B32, U64, U32, B64, B32, B32],
        },
        KernelDecl {
            name: "gpsm_join",
            params: &[
                B64, B32, U32, B32, U64, U64, U32, U32, B32, U64, B64, B32, U32, U32, B32, U32, U32, B64, U64, B32, B32,
            ],
        },
    ],
};

/// Threads per block of every kernel here (`G_WARPS` warps for `gpsm_join`'s shared rows).
pub(super) const BLOCK: u32 = 256;
/// `G_NONE` of `gpsm.cu`.
pub(super) const NONE: u32 = u32::MAX;

/// The kernels of `gpsm.cu`, and `filter.cu`'s scatter that compacts bitsets into lists.
pub struct GpsmKernels {
    check: Kernel,
    popc: Kernel,
    scatter: Kernel,
    explore: Kernel,
    refine: Kernel,
    edges: Kernel,
    pub(super) join: Kernel,
}

impl GpsmKernels {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(GpsmKernels {
            check: gpu.kernel(&SOURCE, "gpsm_check")?,
            popc: gpu.kernel(&SOURCE, "gpsm_popc")?,
            scatter: gpu.kernel(&FILTER_SOURCE, "filter_scatter")?,
            explore: gpu.kernel(&SOURCE, "gpsm_explore")?,
            refine: gpu.kernel(&SOURCE, "gpsm_refine")?,
            edges: gpu.kernel(&SOURCE, "gpsm_edges")?,
            join: gpu.kernel(&SOURCE, "gpsm_join")?,
        })
    }
}

/// Everything one GpSM query runs on.
pub(crate) struct Device<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) k: &'a GpsmKernels,
    pub(crate) labels: &'a DeviceBuffer<u32>,
    pub(crate) adj: &'a SortedAdjacency,
    /// Device bytes one step's output may take at most (`GpuOptions::memory_budget`).
    pub(crate) memory_budget: Option<u64>,
    /// Most elements of one download of written matches (`GpuOptions::download_elements`).
    pub(crate) download_elements: usize,
}

/// A grid of one warp per item.
pub(super) fn warps(items: u64) -> Result<u32> {
    to_u32("GpSM warps", (items * 32).div_ceil(BLOCK as u64))
}

/// A grid of one thread per item.
fn threads(items: u64) -> Result<u32> {
    to_u32("GpSM threads", items.div_ceil(BLOCK as u64))
}

impl Device<'_> {
    fn n(&self, data: &Graph) -> u32 {
        data.num_vertices() as u32
    }

    /// The data-graph arguments `gpsm_explore`, `gpsm_refine` and `gpsm_edges` start with.
    fn graph_args(&self, data: &Graph) -> Vec<Arg<'_>> {
        let adj = self.adj;
        vec![Arg::In64(&adj.offsets), Arg::In32(&adj.columns), Arg::In32(&adj.labels), Arg::U32(self.n(data))]
    }

    /// The lists of set bits of `bits` (bitsets of `words` words one after another), one list
    /// per bitset, each sorted by id.
    fn compact(&self, bits: &DeviceBuffer<u32>, words: usize) -> Result<Vec<DeviceBuffer<u32>>> {
        let total = bits.len() as u64;
        let mut counts = self.gpu.alloc_zeros::<u32>("GpSM word counts", total as usize)?;
        self.gpu.launch(
            &self.k.popc,
            threads(total)?,
            BLOCK,
            &mut [Arg::In32(bits), Arg::U64(total), Arg::Out32(&mut counts)],
        )?;
        let (offsets, n) = exclusive_scan(self.gpu, &counts)?;
        let mut all = self.gpu.alloc_zeros::<u32>("GpSM candidates", n as usize)?;
        self.gpu.launch(
            &self.k.scatter,
            threads(total)?,
            BLOCK,
            &mut [
                Arg::In32(bits),
                Arg::U64(total),
                Arg::U32(to_u32("bitset words", words as u64)?),
                Arg::In64(&offsets),
                Arg::Out32(&mut all),
            ],
        )?;
        let at: Vec<u64> = (0..=bits.len() / words).map(|u| (u * words) as u64).collect();
        let starts = list_starts(self.gpu, &offsets, &self.gpu.upload("GpSM list starts", &at)?)?;
        starts
            .windows(2)
            .map(|w| {
                let mut list = self.gpu.alloc_zeros::<u32>("GpSM candidate list", (w[1] - w[0]) as usize)?;
                self.gpu.copy(&all, w[0] as usize, &mut list, 0, (w[1] - w[0]) as usize)?;
                Ok(list)
            })
            .collect()
    }

    /// The filter (§4.1): Def. 3, the exploration in visit order, the refinement rounds;
    /// returns every query vertex's bitset (`words` words each, one after another) and sorted
    /// candidate list.
    pub(super) fn filter(
        &self,
        data: &Graph,
        q: &Query,
        semantics: Semantics,
        opts: &GpsmOptions,
        words: usize,
    ) -> Result<(DeviceBuffer<u32>, Vec<DeviceBuffer<u32>>)> {
        let (gpu, k, n) = (self.gpu, self.k, self.n(data));
        let nq = q.num_vertices();
        let directed = data.is_directed();
        let mut qinfo = Vec::with_capacity(4 * nq);
        let mut allowed = Vec::new();
        for u in 0..nq as u32 {
            let degree = |dir: Dir| q.edges(u).iter().filter(|e| e.dir == dir).count() as u32;
            let (out, inc) = (degree(Dir::Out), degree(Dir::In));
            let (out, inc) = if semantics.injective() { (out, inc) } else { (out.min(1), inc.min(1)) };
            let restricted = q.graph().allowed(u);
            qinfo.extend([q.label(u), out, inc, u32::from(restricted.is_some())]);
            match restricted {
                Some(set) => allowed.extend(device_words(set, words)),
                None => allowed.extend(std::iter::repeat_n(0, words)),
            }
        }
        let qinfo = gpu.upload("GpSM query vertices", &qinfo)?;
        let allowed = gpu.upload("GpSM allowed sets", &allowed)?;
        let total = (nq * words) as u64;
        let mut ok = gpu.alloc_zeros::<u32>("GpSM label-degree bitsets", total as usize)?;
        gpu.launch(
            &k.check,
            threads(total)?,
            BLOCK,
            &mut [
                Arg::In32(self.labels),
                Arg::In64(&self.adj.offsets),
                Arg::U32(n),
                Arg::U32(u32::from(directed)),
                Arg::In32(&qinfo),
                Arg::U32(nq as u32),
                Arg::U64(words as u64),
                Arg::In32(&allowed),
                Arg::Out32(&mut ok),
            ],
        )?;
        drop((qinfo, allowed));
        // Exploration (Alg. 2): roots start from Def. 3, every other vertex from its parent.
        let tree = spanning_tree(q, &|u| rank(q, data, u));
        let mut bits = gpu.alloc_zeros::<u32>("GpSM candidate bitsets", total as usize)?;
        for &x in &tree.order {
            if tree.parent[x as usize].is_none() {
                gpu.copy(&ok, x as usize * words, &mut bits, x as usize * words, words)?;
            }
            let mut neighbours = Vec::new();
            if let Some((p, dir, label)) = tree.parent[x as usize] {
                neighbours.extend([p, dir_index(dir), label, 0]);
            }
            for (v, parent) in tree.parent.iter().enumerate() {
                if let Some((_, _, label)) = parent.filter(|&(p, _, _)| p == x) {
                    let e = q.edges(x).iter().find(|e| e.to == v as u32 && e.label == label).expect("the tree edge");
                    neighbours.extend([v as u32, dir_index(e.dir), e.label, 1]);
                }
            }
            if neighbours.is_empty() {
                continue;
            }
            let mut own = gpu.alloc_zeros::<u32>("GpSM explored bitset", words)?;
            gpu.copy(&bits, x as usize * words, &mut own, 0, words)?;
            let cands = self.compact(&own, words)?.remove(0);
            let tree_dev = gpu.upload("GpSM tree edges", &neighbours)?;
            let mut args = self.graph_args(data);
            args.extend([
                Arg::In32(&cands),
                Arg::U64(cands.len() as u64),
                Arg::U32(x),
                Arg::In32(&tree_dev),
                Arg::U32((neighbours.len() / 4) as u32),
                Arg::In32(&ok),
                Arg::Out32(&mut bits),
                Arg::U64(words as u64),
            ]);
            gpu.launch(&k.explore, warps(cands.len() as u64)?, BLOCK, &mut args)?;
        }
        drop(ok);
        // Refinement over the simplified query: vertices of at least min_degree edges.
        let simple = |u: u32| q.degree(u) >= opts.min_degree;
        let mut links = Vec::new();
        let mut link_at = vec![0u32];
        for u in 0..nq as u32 {
            if simple(u) {
                for e in q.edges(u).iter().filter(|e| simple(e.to)) {
                    links.extend([e.to, dir_index(e.dir), e.label]);
                }
            }
            link_at.push((links.len() / 3) as u32);
        }
        let mut lists = self.compact(&bits, words)?;
        if links.is_empty() {
            return Ok((bits, lists));
        }
        let links = gpu.upload("GpSM refinement links", &links)?;
        let link_at = gpu.upload("GpSM refinement link offsets", &link_at)?;
        for _ in 0..opts.rounds {
            if lists.iter().any(|l| l.is_empty()) {
                break;
            }
            let mut at = vec![0u64];
            let mut all = gpu.alloc_zeros::<u32>("GpSM refined candidates", lists.iter().map(|l| l.len()).sum())?;
            for l in &lists {
                let start = at[at.len() - 1];
                gpu.copy(l, 0, &mut all, start as usize, l.len())?;
                at.push(start + l.len() as u64);
            }
            let entries = at[nq];
            let at = gpu.upload("GpSM refined offsets", &at)?;
            let mut removed = gpu.alloc_zeros::<u32>("GpSM removals", 1)?;
            let mut args = self.graph_args(data);
            args.extend([
                Arg::In32(&all),
                Arg::In64(&at),
                Arg::U32(nq as u32),
                Arg::In32(&links),
                Arg::In32(&link_at),
                Arg::Out32(&mut bits),
                Arg::U64(words as u64),
                Arg::Out32(&mut removed),
            ]);
            gpu.launch(&k.refine, warps(entries)?, BLOCK, &mut args)?;
            drop(args);
            if gpu.download(&removed)?[0] == 0 {
                break;
            }
            lists = self.compact(&bits, words)?;
        }
        Ok((bits, lists))
    }

    /// One pass of the candidate-edge table of `edge` keyed on its endpoint `key` (§4.2):
    /// for each candidate of `key` (its sorted list `keys`), its neighbours through the edge
    /// that are candidates of the other endpoint, counted into `counts` or (`write`) written
    /// in id order from `offsets`.
    #[allow(clippy::too_many_arguments)]
    fn edge_pass(
        &self,
        data: &Graph,
        (edge, key): (Edge, u32),
        keys: &DeviceBuffer<u32>,
        bits: &DeviceBuffer<u32>,
        words: usize,
        write: Option<&DeviceBuffer<u64>>,
        counts: &mut DeviceBuffer<u32>,
        values: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        let other = if key == edge.a { edge.b } else { edge.a };
        let none = self.gpu.alloc_zeros::<u64>("placeholder", 1)?;
        let mut args = self.graph_args(data);
        args.extend([
            Arg::In32(keys),
            Arg::U64(keys.len() as u64),
            Arg::U32(dir_index(edge.dir_from(key, data.is_directed()))),
            Arg::U32(edge.label),
            Arg::In32(bits),
            Arg::U64(other as u64 * words as u64),
            Arg::U32(u32::from(write.is_some())),
            Arg::In64(write.unwrap_or(&none)),
            Arg::Out32(counts),
            Arg::Out32(values),
        ]);
        Ok(self.gpu.launch(&self.k.edges, warps(keys.len() as u64)?, BLOCK, &mut args)?)
    }

    /// The table's first step (two-step output): each key's run offset (keys + 1 offsets),
    /// and the candidate edges in all.
    pub(super) fn edge_counts(
        &self,
        data: &Graph,
        edge: (Edge, u32),
        keys: &DeviceBuffer<u32>,
        bits: &DeviceBuffer<u32>,
        words: usize,
    ) -> Result<(DeviceBuffer<u64>, u64)> {
        let mut counts = self.gpu.alloc_zeros::<u32>("GpSM edge counts", keys.len())?;
        let mut none = self.gpu.alloc_zeros::<u32>("placeholder", 1)?;
        self.edge_pass(data, edge, keys, bits, words, None, &mut counts, &mut none)?;
        exclusive_scan(self.gpu, &counts)
    }

    /// The table's second step: the runs, written at `offsets` (`total` values).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn edge_values(
        &self,
        data: &Graph,
        edge: (Edge, u32),
        keys: &DeviceBuffer<u32>,
        bits: &DeviceBuffer<u32>,
        words: usize,
        (offsets, total): (&DeviceBuffer<u64>, u64),
    ) -> Result<DeviceBuffer<u32>> {
        let mut values = self.gpu.alloc_zeros::<u32>("GpSM candidate edges", total as usize)?;
        let mut none = self.gpu.alloc_zeros::<u32>("placeholder", 1)?;
        self.edge_pass(data, edge, keys, bits, words, Some(offsets), &mut none, &mut values)?;
        Ok(values)
    }
}
