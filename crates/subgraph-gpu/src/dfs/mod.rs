//! Depth-first counting on the GPU (`dfs.cu`; beyond GSI: the warp-level DFS of STMatch,
//! T-DFS and gMatch, with the counted tail of the plan): the records the kernel reads for every
//! plan position, the tail program (the counted positions' label groups), the per-warp
//! scratch for the levels it enumerates and the groups' lists, and the launch over one
//! frontier table, stopped by a host-mapped flag (a deadline, Ctrl-C) relayed through device
//! memory: each warp looks at the relay by its SM's clock, under a millisecond apart, and one
//! warp at a time copies the host flag into it (bench/results/2026-11-25-timeouts.md and
//! 2026-11-25-dfs-stop.md: reading the host flag from every warp made the kernel 10–200× slower).
//! With work stealing on, warps left without frontier rows wait for work that busy warps hand
//! over: the upper half of the candidates left at their shallowest level (the stealing of
//! STMatch, T-DFS and gMatch, asked for by the idle and handed over by the busy, so that no warp
//! reads another's stack), and each launch reports how busy its warps were.

use subgraph_core::plan::{Link, Plan};
use subgraph_core::{Dir, Graph, Query};
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, HostFlag, Kernel, KernelDecl, KernelSource, Param};

use crate::error::{to_u32, GpuError, Result};
use crate::shared::levels::{dir_index, level_descriptor};
use crate::shared::report::DfsStats;

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// Threads per block of `dfs_count` (`D_WARPS` warps).
pub const DFS_BLOCK: u32 = 256;
/// Most query vertices a counted group may hold (`D_MAX_GROUP`).
pub const MAX_GROUP: usize = 5;

/// The kernels of `dfs.cu` (compiled after `pcsr.cu` and `slices.cu`, whose lookups they call).
pub static SOURCE: KernelSource = KernelSource {
    name: "dfs.cu",
    code: concat!(
        include_str!("../gsi/pcsr.cu"),
        "\n",
        include_str!("../shared/slices.cu"),
        "\n",
        include_str!("dfs.cu")
    ),
    kernels: &[
        KernelDecl {
            name: "dfs_count",
            params: &[
                B32, B64, B32, B32, B32, B64, B32, U32, U32, // graph
                B32, B64, B32, B32, U64, U32, U32, B32, B64, U64, B32, B64, U64, B64, B64, U64, B64, // rows
                B64, B32, B32, U64, U32, U32, // stealing
            ],
        },
        KernelDecl {
            name: "dfs_tails",
            params: &[
                B32, B64, B32, B32, B32, B64, B32, U32, U32, // graph
                B32, B64, B32, B32, U64, U32, U32, B32, B64, U64, B32, B64, U64, B64, B64, U64, B64, // rows
            ],
        },
    ],
};

/// The kernels of `dfs.cu`, loaded once: the depth-first walk and the tails-only count (for
/// frontiers at the first counted position), with how many warps of each the device runs at
/// once, and the stop flag the launches share (page-locked allocations cost milliseconds).
pub struct DfsKernels {
    count: (Kernel, u64),
    tails: (Kernel, u64),
    flag: HostFlag,
}

impl DfsKernels {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let resident = |name| -> Result<(Kernel, u64)> {
            let kernel = gpu.kernel(&SOURCE, name)?;
            let blocks = gpu.resident_blocks(&kernel, DFS_BLOCK)?.max(1) as u64;
            Ok((kernel, blocks * gpu.info().multiprocessors as u64 * (DFS_BLOCK / 32) as u64))
        };
        Ok(DfsKernels { count: resident("dfs_count")?, tails: resident("dfs_tails")?, flag: gpu.host_flag()? })
    }
}

/// The largest N(v, dir, pair) of the data graph, per direction and data pair id: bounds of
/// the local candidate sets the kernel keeps.
pub fn largest_groups(data: &Graph) -> Vec<Vec<u32>> {
    use rayon::prelude::*;
    let dirs: &[Dir] = if data.is_directed() { &[Dir::Out, Dir::In] } else { &[Dir::Out] };
    dirs.iter()
        .map(|&dir| {
            (0..data.num_vertices() as u32)
                .into_par_iter()
                .fold(
                    || vec![0u32; data.num_pairs()],
                    |mut acc, v| {
                        data.neighbor_groups(v, dir)
                            .for_each(|(p, n)| acc[p as usize] = acc[p as usize].max(n.len() as u32));
                        acc
                    },
                )
                .reduce(|| vec![0u32; data.num_pairs()], |a, b| a.iter().zip(&b).map(|(x, y)| *x.max(y)).collect())
        })
        .collect()
}

/// Device addresses of one plan position's candidate bitset and list, and the list's length.
#[derive(Debug, Clone, Copy)]
pub struct LevelAddresses {
    pub bitset: u64,
    pub cands: u64,
    pub ncands: u64,
}

/// One query's records and tail program on the device.
pub struct DfsPlan {
    descs: DeviceBuffer<u32>,
    recs: DeviceBuffer<u64>,
    tail: DeviceBuffer<u32>,
    /// Per position, the most local candidates the kernel may keep for it.
    caps: Vec<u64>,
    /// The counted positions whose candidate lists the kernel keeps (members of groups of
    /// several).
    kept: Vec<usize>,
    t0: usize,
    /// The level the breadth-first join hands over (columns of the frontier table).
    frontier: usize,
}

/// The tail program of `plan` on the host: the positions' descriptors and each one's offset
/// there, the program, and the positions whose lists the kernel keeps.
struct HostProgram {
    descs: Vec<u32>,
    offsets: Vec<u64>,
    tail: Vec<u32>,
    kept: Vec<usize>,
}

fn host_program(
    plan: &Plan,
    q: &Query,
    injective: bool,
    structure: &impl Fn(usize, usize, &Link) -> u32,
) -> Result<HostProgram> {
    let n = plan.len();
    let t0 = plan.tail_start();
    let mut descs = Vec::new();
    let mut offsets = Vec::with_capacity(n);
    for pos in 0..n {
        offsets.push(descs.len() as u64);
        descs.extend(level_descriptor(plan, pos, q.label(plan.vertices[pos]), injective, |k, l| structure(pos, k, l)));
    }
    // Groups of counted positions sharing a label (every position alone when matches need not
    // be injective: the count is then the product).
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for t in t0..n {
        let label = q.label(plan.vertices[t]);
        match groups.iter_mut().find(|g| injective && q.label(plan.vertices[g[0]]) == label) {
            Some(g) => g.push(t),
            None => groups.push(vec![t]),
        }
    }
    let mut tail = vec![groups.len() as u32];
    let mut kept = Vec::new();
    for group in &groups {
        let m = group.len();
        if m > MAX_GROUP {
            return Err(GpuError::TooLarge {
                what: "counted vertices of one label",
                len: m as u64,
                max: MAX_GROUP as u64,
            });
        }
        tail.push(m as u32);
        tail.extend(group.iter().map(|&t| t as u32));
        if m > 1 {
            kept.extend(group);
        }
    }
    Ok(HostProgram { descs, offsets, tail, kept })
}

impl DfsPlan {
    /// The records of `plan` over the positions' device candidates `levels`; `largest` from
    /// [`largest_groups`]; the frontier is the deepest level up to the first counted position
    /// whose estimated rows (by the plan's estimate) are at most `max_rows`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        gpu: &Gpu,
        plan: &Plan,
        q: &Query,
        injective: bool,
        structure: impl Fn(usize, usize, &Link) -> u32,
        levels: &[LevelAddresses],
        largest: &[Vec<u32>],
        max_rows: f64,
    ) -> Result<DfsPlan> {
        let program = host_program(plan, q, injective, &structure)?;
        let recs: Vec<u64> =
            program.offsets.iter().zip(levels).flat_map(|(&off, l)| [off, l.bitset, l.cands, l.ncands]).collect();
        let t0 = plan.tail_start();
        // The deepest level up to t0 whose estimated table stays within the frontier's rows.
        let rows_at = |c: usize| plan.estimate.as_ref().and_then(|e| e.levels.get(c - 1).copied()).unwrap_or(0.0);
        let mut frontier = t0.max(1);
        while frontier > 1 && rows_at(frontier) > max_rows {
            frontier -= 1;
        }
        let caps = (0..plan.len())
            .map(|p| {
                let links = &plan.backward[p];
                links
                    .iter()
                    .map(|l| largest[dir_index(l.dir) as usize][l.pair as usize] as u64)
                    .min()
                    .unwrap_or(plan.sizes[p] as u64)
            })
            .collect();
        Ok(DfsPlan {
            descs: gpu.upload("DFS descriptors", &program.descs)?,
            recs: gpu.upload("DFS records", &recs)?,
            tail: gpu.upload("DFS tail program", &program.tail)?,
            caps,
            kept: program.kept,
            t0,
            frontier,
        })
    }

    /// The first counted position.
    pub fn t0(&self) -> usize {
        self.t0
    }

    /// Columns of the table the breadth-first join hands over.
    pub fn frontier(&self) -> usize {
        self.frontier
    }

    /// The positions whose candidates one warp keeps in its scratch, from frontier `c0`: the
    /// levels c0..t0 it enumerates depth first and the counted groups' members.
    fn scratch_positions(&self, c0: usize) -> impl Iterator<Item = usize> + '_ {
        (c0.min(self.t0)..self.t0).chain(self.kept.iter().copied())
    }

    /// Scratch words one warp needs from frontier `c0`.
    pub fn stride(&self, c0: usize) -> u64 {
        self.scratch_positions(c0).map(|p| self.caps[p]).sum::<u64>().max(1)
    }
}

/// Most stolen ranges one launch holds at once, handed over and not yet taken (fewer where the
/// chunk budget is smaller; while the ring is full, busy warps keep their work).
pub const STEAL_RING: u64 = 1 << 16;

/// What one DFS launch found.
#[derive(Debug, Clone, Copy, Default)]
pub struct DfsOutcome {
    /// Matches of the plan counted (before its multiplier).
    pub matches: u128,
    /// Whether the stop flag ended the launch early.
    pub stopped: bool,
    /// The launch's work: rows, ranges stolen, warp time.
    pub stats: DfsStats,
}

/// Counts the matches of every row of `table` (`rows` rows of `c0` columns) depth first.
/// `graph` is the join's data-graph arguments; `limit` (plan matches, 0 for none) stops all
/// warps once reached; `steal` turns work stealing on where the kernel enumerates a level (the
/// frontier lies above the first counted position; below it, `dfs_tails` counts each row's
/// tail); `poll` is called about every millisecond and returns true to stop.
#[allow(clippy::too_many_arguments)]
pub fn count(
    gpu: &Gpu,
    kernels: &DfsKernels,
    plan: &DfsPlan,
    graph: Vec<Arg<'_>>,
    table: &DeviceBuffer<u32>,
    rows: u64,
    c0: usize,
    limit: u64,
    budget: u64,
    steal: bool,
    mut poll: impl FnMut() -> bool,
) -> Result<DfsOutcome> {
    let start = std::time::Instant::now();
    let stride = plan.stride(c0);
    // The ring of handed-over ranges: a level d below t0, the range, and the row's first d
    // columns, in at most an eighth of the budget.
    let steal = steal && c0 < plan.t0;
    let width = plan.t0 as u64 + 2;
    let cap = if steal { STEAL_RING.min(budget / 8 / (4 * (width + 1))).max(1) } else { 1 };
    let budget = if steal { budget.saturating_sub(cap * 4 * (width + 1)) } else { budget };
    // A handed-over level is never 0 (the kernel's "every warp is done").
    debug_assert!(c0 >= 1, "the frontier has a column");
    // Persistent warps: as many as run at once, fewer when their scratch would not fit, and
    // (without stealing) no more than there are rows.
    let (kernel, resident_warps) = if c0 < plan.t0 { &kernels.count } else { &kernels.tails };
    let resident_warps = *resident_warps;
    let per_warp = stride * 4 + 16;
    let warps = resident_warps.min((budget / per_warp).max(1));
    let warps = if steal { warps } else { warps.min(rows.max(1)) };
    let blocks = to_u32("DFS blocks", warps.div_ceil((DFS_BLOCK / 32) as u64))?;
    let warps = blocks as u64 * (DFS_BLOCK / 32) as u64;
    let mut lvl_at = vec![0u64; plan.caps.len().max(1)];
    let mut at = 0;
    for p in plan.scratch_positions(c0) {
        lvl_at[p] = at;
        at += plan.caps[p];
    }
    let lvl_at = gpu.upload("DFS level offsets", &lvl_at)?;
    let mut scratch = gpu.alloc_zeros::<u32>("DFS scratch", (warps * stride) as usize)?;
    let mut next_row = gpu.alloc_zeros::<u32>("DFS row counter", 1)?;
    let mut acc = gpu.alloc_zeros::<u64>("DFS counts", 2 * warps as usize)?;
    let mut progress = gpu.alloc_zeros::<u64>("DFS progress", 1)?;
    let mut relay = gpu.alloc_zeros::<u64>("DFS stop relay", 2)?;
    // The walk's stealing counters and ring (one unused slot without stealing); the tails-only
    // kernel has none.
    let mut ring = if c0 < plan.t0 {
        Some((
            gpu.upload("DFS stealing counters", &[0, 0, warps, 0])?,
            gpu.alloc_zeros::<u32>("DFS stolen entries", (cap * width) as usize)?,
            gpu.alloc_zeros::<u32>("DFS stolen entry flags", cap as usize)?,
        ))
    } else {
        None
    };
    let mut stats = gpu.alloc_zeros::<u64>("DFS warp times", 4 * warps as usize)?;
    let flag = &kernels.flag;
    flag.set(0);
    let mut args = graph;
    args.extend([
        Arg::In32(&plan.descs),
        Arg::In64(&plan.recs),
        Arg::In32(&plan.tail),
        Arg::In32(table),
        Arg::U64(rows),
        Arg::U32(c0 as u32),
        Arg::U32(plan.t0 as u32),
        Arg::Out32(&mut scratch),
        Arg::In64(&lvl_at),
        Arg::U64(stride),
        Arg::Out32(&mut next_row),
        Arg::Out64(&mut acc),
        Arg::U64(flag.device_address()),
        Arg::Out64(&mut relay),
        Arg::Out64(&mut progress),
        Arg::U64(limit),
        Arg::Out64(&mut stats),
    ]);
    if let Some((words, entries, ready)) = ring.as_mut() {
        args.extend([
            Arg::Out64(words),
            Arg::Out32(entries),
            Arg::Out32(ready),
            Arg::U64(cap),
            Arg::U32(width as u32),
            Arg::U32(steal as u32),
        ]);
    }
    gpu.launch(kernel, blocks, DFS_BLOCK, &mut args)?;
    drop(args);
    let mut stopped = false;
    gpu.wait_polling(|| {
        if !stopped && poll() {
            stopped = true;
            flag.set(1);
        }
    })?;
    let words = gpu.download(&acc)?;
    let matches = words.chunks_exact(2).map(|w| (w[1] as u128) << 64 | w[0] as u128).sum();
    // Per warp: busy cycles, cycles alive, then born and ended in global nanoseconds.
    let times = gpu.download(&stats)?;
    let born = times.chunks_exact(4).map(|t| t[2]).min().unwrap_or(0);
    let ended = times.chunks_exact(4).map(|t| t[3]).max().unwrap_or(0);
    let busy_ns = times
        .chunks_exact(4)
        .map(|t| (t[0] as f64 * t[3].saturating_sub(t[2]) as f64 / t[1].max(1) as f64) as u64)
        .sum();
    let stolen = match &ring {
        Some((words, _, _)) if steal => gpu.download(words)?[1],
        _ => 0,
    };
    let stats = DfsStats {
        rows,
        launches: 1,
        columns: c0 as u64,
        ms: start.elapsed().as_secs_f64() * 1e3,
        stolen,
        busy_ns,
        warp_ns: warps * ended.saturating_sub(born),
    };
    Ok(DfsOutcome { matches, stopped: stopped || flag.get() != 0, stats })
}
