//! GpSM (Tran, Kim & He, DASFAA 2015; `../shared/papers/gpsm-ggq.md` Part A) as a strategy of
//! the GPU engine (`--gpu-strategy gpsm`), the edge-oriented baseline the GSI paper measures
//! against. Filter: Def. 3's label and degree check on every data vertex, exploration along
//! the query's spanning tree in GpSM's visit order (§4.1, Alg. 2), then rounds of neighbour
//! refinement over the simplified query (query vertices of at least `min_degree` edges). Join:
//! a candidate-edge table per query edge, keyed on the endpoint the plan binds first (sorted
//! keys, a run of sorted neighbours each, built by two-step output, §4.2), and the left-deep
//! edge join that starts from the edge of fewest candidate edges and prefers closing edges
//! (§4.3), one warp per partial row with its row in shared memory, two-step output at every
//! step. Beyond the paper, so that answers are exact everywhere: directed and edge-labelled
//! data (direction and edge label are part of every table), induced matching (non-edges
//! checked as a vertex is bound), homomorphisms (no injectivity, no degree bound), queries of
//! several components (a component's first vertex joins its candidate list), and a step whose
//! output would not fit the device-memory budget runs on halves of its rows, depth first.

pub mod options;

use std::time::Instant;

use subgraph_core::filter::Filter;
use subgraph_core::pipeline::{MatchOptions, Report};
use subgraph_core::sink::{Control, Output, Stopped};
use subgraph_core::{Dir, Graph, Query, Semantics};
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, HostBuffer, Kernel, KernelDecl, KernelSource, Param};

use crate::device::{loaded, GpuDevice};
use crate::error::{to_u32, GpuError, Result};
use crate::gpsm::options::GpsmOptions;
use crate::gsi::chunks::{MAX_CHUNK_ROWS, ROW_OVERHEAD_BYTES};
use crate::gsi::device_graph::SortedAdjacency;
use crate::gsi::filter::{device_words, SOURCE as FILTER_SOURCE};
use crate::options::GpuOptions;
use crate::shared::emit::{Expand, Take};
use crate::shared::levels::{dir_index, MAX_COLUMNS};
use crate::shared::report::GpuReport;
use crate::shared::scan::{exclusive_scan, list_starts};
use crate::shared::tally::Tally;

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
const BLOCK: u32 = 256;
/// `G_NONE` of `gpsm.cu`.
const NONE: u32 = u32::MAX;

/// The kernels of `gpsm.cu`, and `filter.cu`'s scatter that compacts bitsets into lists.
pub struct GpsmKernels {
    check: Kernel,
    popc: Kernel,
    scatter: Kernel,
    explore: Kernel,
    refine: Kernel,
    edges: Kernel,
    join: Kernel,
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

/// GpSM's spanning tree and visit order (§4.1): the vertices expanded, in order, and each
/// vertex's tree parent with the query edge (direction from the child, edge label) it hangs
/// by. A component starts at the endpoint of higher rank of its edge of highest rank sum (an
/// edgeless vertex alone); then the unexpanded tree vertex with an edge out of the tree of
/// highest rank sum is expanded, adding every neighbour not yet in the tree as its child.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanningTree {
    pub order: Vec<u32>,
    pub parent: Vec<Option<(u32, Dir, u32)>>,
}

/// GpSM's rank of query vertex u: its degree over the number of data vertices of its label
/// (TurboISO's and STwig's proxy for few candidates).
pub fn rank(q: &Query, data: &Graph, u: u32) -> f64 {
    q.degree(u) as f64 / data.vertices_with_label(q.label(u)).len().max(1) as f64
}

/// The spanning tree and visit order of `q` under `rank` (ties to the lower vertex id).
pub fn spanning_tree(q: &Query, rank: &dyn Fn(u32) -> f64) -> SpanningTree {
    let n = q.num_vertices();
    let (mut in_tree, mut expanded) = (vec![false; n], vec![false; n]);
    let mut parent = vec![None; n];
    let mut order = Vec::with_capacity(n);
    let better = |best: Option<(f64, u32)>, score: f64| best.is_none_or(|(s, _)| score > s);
    loop {
        // The next vertex to expand: in the tree, not expanded, with an edge leaving the tree.
        let mut next: Option<(f64, u32)> = None;
        for x in (0..n as u32).filter(|&x| in_tree[x as usize] && !expanded[x as usize]) {
            for e in q.edges(x).iter().filter(|e| !in_tree[e.to as usize]) {
                let score = rank(x) + rank(e.to);
                if better(next, score) {
                    next = Some((score, x));
                }
            }
        }
        let x = match next {
            Some((_, x)) => x,
            None => {
                // A new component: its edge of highest rank sum, from the endpoint of higher
                // rank; an edgeless vertex of highest rank alone.
                let mut root: Option<(f64, u32)> = None;
                for a in (0..n as u32).filter(|&a| !in_tree[a as usize]) {
                    for e in q.edges(a).iter().filter(|e| rank(a) >= rank(e.to) && !in_tree[e.to as usize]) {
                        if better(root, rank(a) + rank(e.to)) {
                            root = Some((rank(a) + rank(e.to), a));
                        }
                    }
                }
                if root.is_none() {
                    for a in (0..n as u32).filter(|&a| !in_tree[a as usize]) {
                        if better(root, rank(a)) {
                            root = Some((rank(a), a));
                        }
                    }
                }
                let Some((_, r)) = root else { break };
                in_tree[r as usize] = true;
                r
            }
        };
        expanded[x as usize] = true;
        order.push(x);
        for e in q.edges(x) {
            if !in_tree[e.to as usize] {
                in_tree[e.to as usize] = true;
                let back = q.edges(e.to).iter().find(|b| b.to == x).expect("query edges are stored both ways");
                parent[e.to as usize] = Some((x, back.dir, back.label));
            }
        }
    }
    SpanningTree { order, parent }
}

/// One query edge: a data edge must go from a's match to b's (in either direction when
/// undirected) with this label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub a: u32,
    pub b: u32,
    pub label: u32,
}

impl Edge {
    /// The direction of the edge seen from `key` (one of its endpoints).
    fn dir_from(self, key: u32, directed: bool) -> Dir {
        if key == self.a || !directed {
            Dir::Out
        } else {
            Dir::In
        }
    }
}

/// One step of the edge join (§4.3): `vertex` joins the rows from its candidates (`edge`
/// None: the first vertex of a component), or through `edge` keyed on its other endpoint
/// `key`; a closing step checks `edge` between two bound vertices instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub vertex: u32,
    pub edge: Option<(usize, u32)>,
    pub closing: bool,
}

/// GpSM's left-deep edge order: from the edge of fewest candidate edges (`edge_size`), each
/// next edge one touching a bound vertex, closing edges (both ends bound) first, then fewest
/// candidate edges; a component's first vertex is the endpoint of fewer candidates
/// (`cand_size`) of its edge of fewest candidate edges (an edgeless vertex by itself).
pub fn join_plan(n: usize, edges: &[Edge], edge_size: &[u64], cand_size: &[u64]) -> Vec<Step> {
    let mut bound = vec![false; n];
    let mut used = vec![false; edges.len()];
    let mut steps = Vec::with_capacity(n + edges.len());
    loop {
        let touching = (0..edges.len())
            .filter(|&i| !used[i] && (bound[edges[i].a as usize] || bound[edges[i].b as usize]))
            .min_by_key(|&i| (!(bound[edges[i].a as usize] && bound[edges[i].b as usize]), edge_size[i], i));
        if let Some(i) = touching {
            let e = edges[i];
            used[i] = true;
            let (key, vertex) = if bound[e.a as usize] { (e.a, e.b) } else { (e.b, e.a) };
            let closing = bound[vertex as usize];
            bound[vertex as usize] = true;
            steps.push(Step { vertex, edge: Some((i, key)), closing });
            continue;
        }
        let start = match (0..edges.len()).filter(|&i| !used[i]).min_by_key(|&i| (edge_size[i], i)) {
            Some(i) => {
                let e = edges[i];
                if cand_size[e.b as usize] < cand_size[e.a as usize] {
                    e.b
                } else {
                    e.a
                }
            }
            None => match (0..n as u32).filter(|&u| !bound[u as usize]).min_by_key(|&u| (cand_size[u as usize], u)) {
                Some(u) => u,
                None => break,
            },
        };
        bound[start as usize] = true;
        steps.push(Step { vertex: start, edge: None, closing: false });
    }
    steps
}

/// The induced checks of binding `y` after the vertices `bound` (by column): (column, mask)
/// pairs, mask 1 where no query edge goes from the column's vertex to y (so no data edge may),
/// 2 where none goes from y to it (directed only).
fn forbidden(q: &Query, bound: &[u32], y: u32, directed: bool) -> Vec<u32> {
    let mut out = Vec::new();
    for (col, &z) in bound.iter().enumerate() {
        let mask = match directed {
            true => u32::from(q.edge(z, y, Dir::Out).is_none()) | (u32::from(q.edge(z, y, Dir::In).is_none()) << 1),
            false => u32::from(!q.adjacent(z, y)),
        };
        if mask != 0 {
            out.extend([col as u32, mask]);
        }
    }
    out
}

/// Everything one GpSM query runs on.
pub(crate) struct Device<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) k: &'a GpsmKernels,
    pub(crate) labels: &'a DeviceBuffer<u32>,
    pub(crate) adj: &'a SortedAdjacency,
    /// Device bytes one step's output may take at most (`GpuOptions::memory_budget`).
    pub(crate) memory_budget: Option<u64>,
}

/// A grid of one warp per item.
fn warps(items: u64) -> Result<u32> {
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
    fn filter(
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
    fn edge_counts(
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
    fn edge_values(
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

/// One join step on the device: its table (keys, offsets, values; for a component's first
/// vertex, its candidates as values), the key's column (`NONE` for the candidates), the
/// checked column of a closing step (else `NONE`) and the induced checks.
struct DeviceStep {
    kc: u32,
    keys: usize,
    offsets: DeviceBuffer<u64>,
    values: Option<DeviceBuffer<u32>>,
    cc: u32,
    forbid: DeviceBuffer<u32>,
    nforbid: u32,
}

/// The edge join of one query on one device.
struct EdgeJoin<'a, 'd> {
    dev: &'a Device<'d>,
    data: &'a Graph,
    lists: &'a [DeviceBuffer<u32>],
    steps: Vec<DeviceStep>,
    /// Columns of the table before each step (and after the last).
    cols: Vec<usize>,
    injective: bool,
    take: Take<'a>,
    expand: Expand<'static>,
    nodes: u64,
    chunks: u64,
}

impl EdgeJoin<'_, '_> {
    /// Device bytes one step's output may take: half of what may still be allocated, within
    /// the configured budget.
    fn budget(&self) -> Result<u64> {
        Ok((self.dev.gpu.headroom()? / 2).min(self.dev.memory_budget.unwrap_or(u64::MAX)))
    }

    /// Step `i` over rows [start, start + rows) of `table`: counted (write false, into
    /// `counts`) or written from `offsets[start] = base` into `out`.
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        i: usize,
        table: &DeviceBuffer<u32>,
        start: u64,
        rows: u64,
        write: Option<(&DeviceBuffer<u64>, u64)>,
        counts: &mut DeviceBuffer<u32>,
        out: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        let gpu = self.dev.gpu;
        let s = &self.steps[i];
        let keys = &self.lists[s.keys];
        let values = s.values.as_ref().unwrap_or(keys);
        let nkeys = if s.kc == NONE { values.len() } else { keys.len() };
        let none = gpu.alloc_zeros::<u64>("placeholder", 1)?;
        let (offsets, base) = write.unwrap_or((&none, 0));
        Ok(gpu.launch(
            &self.dev.k.join,
            warps(rows)?,
            BLOCK,
            &mut [
                Arg::In64(&self.dev.adj.offsets),
                Arg::In32(&self.dev.adj.columns),
                Arg::U32(self.data.num_vertices() as u32),
                Arg::In32(table),
                Arg::U64(start),
                Arg::U64(rows),
                Arg::U32(self.cols[i] as u32),
                Arg::U32(s.kc),
                Arg::In32(keys),
                Arg::U64(nkeys as u64),
                Arg::In64(&s.offsets),
                Arg::In32(values),
                Arg::U32(s.cc),
                Arg::U32(u32::from(self.injective)),
                Arg::In32(&s.forbid),
                Arg::U32(s.nforbid),
                Arg::U32(u32::from(write.is_some())),
                Arg::In64(offsets),
                Arg::U64(base),
                Arg::Out32(counts),
                Arg::Out32(out),
            ],
        )?)
    }

    /// Runs steps `i..` on `table` (`rows` rows).
    fn step(&mut self, i: usize, table: DeviceBuffer<u32>, rows: u64) -> Result<()> {
        if i == self.steps.len() {
            let n = self.cols[i];
            return self.take.emit(&table, rows, n, &self.expand, 1);
        }
        if rows == 0 || self.take.stop_now() {
            return Ok(());
        }
        let gpu = self.dev.gpu;
        let mut counts = gpu.alloc_zeros::<u32>("GpSM row counts", rows as usize)?;
        let mut none = gpu.alloc_zeros::<u32>("placeholder", 1)?;
        self.launch(i, &table, 0, rows, None, &mut counts, &mut none)?;
        let (offsets, total) = exclusive_scan(gpu, &counts)?;
        drop(counts);
        if i + 1 == self.steps.len() && self.take.output.is_none() {
            self.take.add(total as u128);
            return Ok(());
        }
        self.rows(i, &table, &offsets, (0, 0), (rows, total))
    }

    /// Writes step `i`'s output of rows [start, end) of `table` (their outputs at
    /// [lo, hi) by `offsets`) and runs the later steps on it; halves the rows while the output
    /// and the next step's per-row buffers would not fit the budget, or pass
    /// [`MAX_CHUNK_ROWS`].
    fn rows(
        &mut self,
        i: usize,
        table: &DeviceBuffer<u32>,
        offsets: &DeviceBuffer<u64>,
        (start, lo): (u64, u64),
        (end, hi): (u64, u64),
    ) -> Result<()> {
        let gpu = self.dev.gpu;
        let cols = self.cols[i + 1] as u64;
        // The next step's table, and per row its counts and scan (as GSI's join reserves);
        // at most MAX_CHUNK_ROWS rows, within the scan's 32-bit length.
        let bytes = (hi - lo).saturating_mul(cols * 4 + ROW_OVERHEAD_BYTES);
        if (bytes > self.budget()? || hi - lo > MAX_CHUNK_ROWS) && end - start > 1 {
            let mid = start + (end - start) / 2;
            let at = gpu.download_range(offsets, mid as usize..mid as usize + 1)?[0];
            self.chunks += 1;
            self.rows(i, table, offsets, (start, lo), (mid, at))?;
            if self.take.stop_now() {
                return Ok(());
            }
            return self.rows(i, table, offsets, (mid, at), (end, hi));
        }
        let len = (hi - lo).checked_mul(cols).ok_or(GpuError::TooLarge {
            what: "GpSM table",
            len: hi - lo,
            max: u64::MAX / cols,
        })?;
        let mut next = gpu.alloc_zeros::<u32>("GpSM table", len as usize)?;
        let mut none = gpu.alloc_zeros::<u32>("placeholder", 1)?;
        self.launch(i, table, start, end - start, Some((offsets, lo)), &mut none, &mut next)?;
        self.nodes += hi - lo;
        self.step(i + 1, next, hi - lo)
    }
}

/// Runs `q` by GpSM on `dev`: filter, plan, tables, join; counts (and writes to `output`)
/// every match, honouring `opts.limit` and `control`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    dev: &Device<'_>,
    host: &mut HostBuffer,
    data: &Graph,
    q: &Query,
    opts: &MatchOptions,
    gpsm: &GpsmOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Result<GpuReport> {
    let start = Instant::now();
    let nq = q.num_vertices();
    if nq > MAX_COLUMNS {
        return Err(GpuError::TooLarge { what: "query vertices", len: nq as u64, max: MAX_COLUMNS as u64 });
    }
    let gpu = dev.gpu;
    let words = data.num_vertices().div_ceil(32).max(1);
    let (bits, lists) = dev.filter(data, q, opts.semantics, gpsm, words)?;
    let filter_ms = start.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let directed = data.is_directed();
    let edges: Vec<Edge> = q.graph().edges().map(|(a, b, label)| Edge { a, b, label }).collect();
    let empty = lists.iter().any(|l| l.is_empty());
    // Every edge's candidate edges, keyed on its first endpoint, for the plan (none to count
    // when some query vertex has no candidate).
    let mut by_a = Vec::with_capacity(edges.len());
    if !empty {
        for &e in &edges {
            by_a.push(Some(dev.edge_counts(data, (e, e.a), &lists[e.a as usize], &bits, words)?));
        }
    }
    let sizes: Vec<u64> = by_a.iter().map(|c| c.as_ref().map_or(0, |c| c.1)).collect();
    let cand_sizes: Vec<u64> = lists.iter().map(|l| l.len() as u64).collect();
    let plan = if empty { Vec::new() } else { join_plan(nq, &edges, &sizes, &cand_sizes) };
    let mut column = vec![NONE; nq];
    let mut bound = Vec::with_capacity(nq);
    let mut cols = vec![0];
    let mut steps = Vec::with_capacity(plan.len());
    let mut candidate_edges = 0;
    let semantics = opts.semantics;
    for s in &plan {
        let forbid = match (s.closing, semantics) {
            (false, Semantics::Induced) => forbidden(q, &bound, s.vertex, directed),
            _ => Vec::new(),
        };
        let (kc, keys, offsets, values) = match s.edge {
            None => (NONE, s.vertex as usize, gpu.alloc_zeros::<u64>("placeholder", 1)?, None),
            Some((i, key)) => {
                let edge = (edges[i], key);
                let keys = &lists[key as usize];
                let counted = match key == edges[i].a {
                    true => by_a[i].take(),
                    false => None,
                };
                let (offsets, total) = match counted {
                    Some(c) => c,
                    None => dev.edge_counts(data, edge, keys, &bits, words)?,
                };
                let values = dev.edge_values(data, edge, keys, &bits, words, (&offsets, total))?;
                candidate_edges += total;
                (column[key as usize], key as usize, offsets, Some(values))
            }
        };
        if !s.closing {
            column[s.vertex as usize] = bound.len() as u32;
            bound.push(s.vertex);
        }
        cols.push(bound.len());
        let cc = if s.closing { column[s.vertex as usize] } else { NONE };
        let nforbid = (forbid.len() / 2) as u32;
        let forbid = match forbid.is_empty() {
            true => gpu.alloc_zeros::<u32>("placeholder", 1)?,
            false => gpu.upload("GpSM non-edges", &forbid)?,
        };
        steps.push(DeviceStep { kc, keys, offsets, values, cc, forbid, nforbid });
    }
    drop((bits, by_a));
    let order_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let tally = Tally::new(opts.limit);
    if let Some((out, name)) = output {
        out.begin_query(name, nq);
    }
    if opts.limit == Some(0) {
        control.stop(Stopped::Limit);
    }
    let position: Vec<usize> = column.iter().map(|&c| c as usize).collect();
    let mut join = EdgeJoin {
        dev,
        data,
        lists: &lists,
        steps,
        cols,
        injective: semantics.injective(),
        take: Take { gpu, tally: &tally, control, output, host, count: 0, done: false },
        expand: Expand::columns(position),
        nodes: 0,
        chunks: 0,
    };
    if !empty && !control.should_stop() {
        let first = plan[0].vertex as usize;
        let rows = lists[first].len();
        let mut table = gpu.alloc_zeros::<u32>("GpSM table", rows)?;
        gpu.copy(&lists[first], 0, &mut table, 0, rows)?;
        join.nodes += rows as u64;
        join.step(1, table, rows as u64)?;
    }
    gpu.synchronize()?;
    let join_ms = t.elapsed().as_secs_f64() * 1e3;
    let stopped = control.stopped();
    let report = Report {
        embeddings: join.take.count,
        complete: stopped.is_none(),
        filter: "gpsm",
        filter_ms,
        order_ms,
        enumerate_ms: join_ms,
        elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
        candidates: cand_sizes.iter().sum(),
        candidate_edges,
        space_bytes: gpu.live_bytes(),
        nodes: join.nodes,
        tasks: join.chunks + 1,
        order: "gpsm",
        ..Report::nothing(Filter::Ldf, stopped)
    };
    Ok(GpuReport {
        joined_rows: join.nodes,
        ..GpuReport::of(report, ("gpsm", "edge-tables"), 0.0, filter_ms, join_ms, gpu.peak_bytes())
    })
}

/// Matches `query` by GpSM ([`crate::gpsm`]) on this device, uploading the id-sorted
/// adjacency and loading the kernels on the first such query.
pub(crate) fn run_query(
    device: &mut GpuDevice,
    kernels: &mut Option<GpsmKernels>,
    query: Graph,
    opts: &MatchOptions,
    gpu_opts: &GpuOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Result<GpuReport> {
    device.whole("GpSM's edge join")?;
    let t = Instant::now();
    let q = Query::new(query, &device.data, opts.semantics)?;
    let kernels = loaded(kernels, || GpsmKernels::new(&device.gpu))?;
    device.graph.ensure_adjacency(&device.gpu, &device.data)?;
    let graph = &device.graph;
    let adj = graph.adjacency.as_ref().ok_or_else(|| GpuError::Mismatch("adjacency not uploaded".into()))?;
    let upload_ms = t.elapsed().as_secs_f64() * 1e3;
    let dev =
        Device { gpu: &device.gpu, k: kernels, labels: &graph.labels, adj, memory_budget: gpu_opts.memory_budget };
    let r = run(&dev, &mut device.host, &device.data, &q, opts, &gpu_opts.gpsm, control, output)?;
    Ok(GpuReport { upload_ms, ..r })
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::GraphBuilder;

    fn query(n: usize, edges: &[(u32, u32, u32)], directed: bool) -> Query {
        let g = |n: usize, e: Vec<(u32, u32, u32)>| GraphBuilder::from_parts(vec![0; n], e, directed).build().0;
        Query::new(g(n, edges.to_vec()), &g(n.max(8), Vec::new()), Semantics::Embed).unwrap()
    }

    #[test]
    fn the_tree_expands_only_inner_vertices_from_the_highest_rank() {
        // A path 0-1-2 whose middle ranks highest: only 1 is expanded (the paper's visit order
        // holds the expanded vertices; leaves get their candidates from their parent).
        let q = query(3, &[(0, 1, 0), (1, 2, 0)], false);
        let t = spanning_tree(&q, &|u| [1.0, 3.0, 2.0][u as usize]);
        assert_eq!(t.order, vec![1]);
        assert_eq!(t.parent, vec![Some((1, Dir::Out, 0)), None, Some((1, Dir::Out, 0))]);
        // From the end of higher rank of the best edge, then the best edge leaving the tree.
        let q = query(4, &[(0, 1, 0), (1, 2, 0), (2, 3, 0)], false);
        let t = spanning_tree(&q, &|u| [5.0, 1.0, 1.0, 4.0][u as usize]);
        assert_eq!(t.order[0], 0);
        assert_eq!(t.order, vec![0, 1, 2]);
    }

    #[test]
    fn the_tree_spans_every_component_by_query_edges() {
        // Directed, two components and an edgeless vertex, an antiparallel pair.
        let q = query(7, &[(0, 1, 1), (1, 0, 2), (2, 1, 0), (3, 4, 0), (5, 4, 3)], true);
        let t = spanning_tree(&q, &|u| (u % 3) as f64);
        let roots: Vec<u32> = (0..7).filter(|&u| t.parent[u as usize].is_none()).collect();
        assert_eq!(roots.len(), 3, "{t:?}");
        for (child, p) in t.parent.iter().enumerate() {
            if let Some((p, dir, label)) = *p {
                let at = t.order.iter().position(|&x| x == p).expect("parents are expanded");
                assert!(q.edge(child as u32, p, dir).is_some_and(|e| e.label == label), "{child} {p}");
                // A child expanded later is expanded after its parent.
                if let Some(c) = t.order.iter().position(|&x| x == child as u32) {
                    assert!(c > at);
                }
            }
        }
        for r in roots.iter().filter(|&&r| q.degree(r) > 0) {
            assert!(t.order.contains(r));
        }
    }

    #[test]
    fn the_join_starts_from_the_fewest_candidate_edges_and_closes_cycles_first() {
        // A triangle 0-1-2 with a pendant 3 on 2, and an edgeless vertex 4.
        let edges = [Edge { a: 0, b: 1, label: 0 }, Edge { a: 1, b: 2, label: 0 }, Edge { a: 2, b: 0, label: 0 }];
        let edges = [&edges[..], &[Edge { a: 2, b: 3, label: 0 }]].concat();
        let plan = join_plan(5, &edges, &[50, 40, 30, 10], &[9, 9, 3, 7, 2]);
        let step = |vertex, edge: Option<(usize, u32)>, closing| Step { vertex, edge, closing };
        assert_eq!(
            plan,
            vec![
                // Edge 3 (10 candidate edges) from its endpoint of fewer candidates, 2.
                step(2, None, false),
                step(3, Some((3, 2)), false),
                // Then the cheaper of the edges at 2, 2-0, the closing 0-1 before nothing else.
                step(0, Some((2, 2)), false),
                step(1, Some((1, 2)), false),
                step(1, Some((0, 0)), true),
                step(4, None, false),
            ]
        );
    }

    #[test]
    fn induced_checks_forbid_every_missing_direction() {
        let q = query(3, &[(0, 1, 0), (2, 1, 0)], true);
        // Binding 1 after 0 and 2: edges 0->1 and 2->1 exist, so only 1->0 and 1->2 are
        // forbidden (mask 2: from the new vertex to the column's).
        assert_eq!(forbidden(&q, &[0, 2], 1, true), vec![0, 2, 1, 2]);
        // Binding 2 after 0: no edge either way.
        assert_eq!(forbidden(&q, &[0], 2, true), vec![0, 3]);
        let q = query(3, &[(0, 1, 0)], false);
        assert_eq!(forbidden(&q, &[0, 1], 2, false), vec![0, 1, 1, 1]);
        assert_eq!(forbidden(&q, &[0], 1, false), Vec::<u32>::new());
    }
}
