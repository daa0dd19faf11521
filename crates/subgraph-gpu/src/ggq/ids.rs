//! GGQ's thread-ID enumeration of a tree pattern's matches (`ids.cu`; seeds/004 §3, Figs. 3–7;
//! `../shared/papers/gpsm-ggq.md` B.4–B.7): one thread per candidate match, its number read as
//! mixed-radix digits that pick, edge by edge from the root, the digit-th edge of the parent's
//! data vertex in that edge's stream (one direction, one label or any). The plan:
//!
//! - **Radices.** The digest's suggested refinement of GGQ's power-of-two bit fields: edge e's
//!   radix is the largest number of e-edges of any data vertex that passes e's parent's label
//!   and tests (GGQ's outgNum, over the parent's candidates instead of every vertex).
//! - **Phases** (Fig. 7). Edges by depth, a new phase whenever the product of a phase's radices
//!   would pass 2^32 (GGQ's 32-bit thread IDs). The first phase's IDs also carry the root
//!   candidate (the vertices passing the root's label and tests); a later phase's, a row of the
//!   phase before. Phases are run depth-first: a phase's survivors are gathered in a buffer of
//!   `chunk` rows, and the next phase runs over them whenever it is half full (the paper's one
//!   launch per prefix, batched into one launch over many prefixes, with the (prefix, thread)
//!   pairs kept as the digest's bookkeeping fix asks).
//! - **Looping** (Fig. 4). Each phase's IDs go in launches of at most `chunk` threads; a launch
//!   writes at most one row per thread, which bounds every buffer.
//! - **Answers.** The last phase counts its survivors; projects them onto the returned columns
//!   and writes them; makes them distinct in a device hash set where a projected row packs into
//!   63 bits (else on the host); and stops at a LIMIT, its threads reading the running count
//!   first, so `LIMIT 1` is GGQ's existence test with early termination.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::time::Instant;

use rayon::prelude::*;
use subgraph_core::sink::{Control, Stopped};
use subgraph_core::tree::TreeQuery;
use subgraph_core::{Dir, Graph};
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, Kernel, KernelDecl, KernelSource, Param};

use super::csr::Csr;
use crate::error::{to_u32, Result};
use crate::gsi::filter::device_words;

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// The kernels of `ids.cu`.
pub static SOURCE: KernelSource = KernelSource {
    name: "ggq/ids.cu",
    code: include_str!("ids.cu"),
    kernels: &[
        KernelDecl {
            name: "ggq_ids",
            params: &[
                B32, B64, U32, U32, U32, B32, U32, U32, U64, U64, U64, U32, B32, U32, U32, U32, B64, U64, U32, U64,
                U64, B32, B64,
            ],
        },
        KernelDecl { name: "ggq_rehash", params: &[B64, U64, B64, U64] },
        KernelDecl { name: "ggq_stream_degrees", params: &[B64, B32, U32, U32, B32] },
        KernelDecl { name: "ggq_stream_fill", params: &[B64, B32, B32, U32, U32, B64, B32] },
    ],
};

/// The most pattern vertices a thread binds (`G_MAX_Q` in `ids.cu`).
pub const MAX_VERTICES: usize = 32;
/// The most thread IDs of one phase for one prefix: GGQ's 32-bit IDs (Fig. 7's maxBits).
pub const PHASE_SPACE: u64 = 1 << 32;
/// The most threads of one launch, and rows of one phase's buffer.
pub const CHUNK: u64 = 1 << 22;
const BLOCK: u32 = 256;

/// One tree edge as a thread follows it: from `parent`'s data vertex along its stream (`dir`,
/// `label`; None: any) to `child`'s, choosing among at most `radix` edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub parent: u32,
    pub child: u32,
    pub dir: Dir,
    pub label: Option<u32>,
    pub radix: u64,
}

/// A tree query's thread-ID layout on one data graph.
#[derive(Debug, Clone)]
pub struct IdPlan {
    /// The root's candidates: the data vertices passing its label and tests (none where some
    /// edge has no candidate edge at all).
    pub roots: Vec<u32>,
    /// The tree's edges by depth.
    pub steps: Vec<Step>,
    /// Each phase's steps.
    pub phases: Vec<Range<usize>>,
    /// The most threads of one launch, and rows of one phase's buffer ([`CHUNK`]; less where
    /// device memory is short).
    pub chunk: u64,
}

/// Data vertex v's edges in the stream of `dir` and `label` (None: any).
fn stream_degree(data: &Graph, v: u32, dir: Dir, label: Option<u32>) -> u64 {
    data.neighbor_groups(v, dir)
        .filter(|&(pair, _)| label.is_none_or(|l| data.pair(pair).0 == l))
        .map(|(_, ws)| ws.len() as u64)
        .sum()
}

impl IdPlan {
    /// The plan of `tree` on `data`; None where it has more than [`MAX_VERTICES`] vertices.
    pub fn new(data: &Graph, tree: &TreeQuery) -> Option<IdPlan> {
        IdPlan::with_space(data, tree, PHASE_SPACE)
    }

    /// [`IdPlan::new`] with phases of at most `phase_space` IDs per prefix (where one edge's
    /// radix is not larger).
    pub fn with_space(data: &Graph, tree: &TreeQuery, phase_space: u64) -> Option<IdPlan> {
        if tree.len() > MAX_VERTICES {
            return None;
        }
        let n = data.num_vertices() as u32;
        let mut steps: Vec<Step> = tree.order[1..]
            .iter()
            .map(|&child| {
                let link = tree.parent[child as usize].expect("every vertex but the root has a parent");
                let radix = (0..n)
                    .into_par_iter()
                    .filter(|&v| tree.admits(data, link.parent, v))
                    .map(|v| stream_degree(data, v, link.dir, link.label))
                    .max()
                    .unwrap_or(0);
                Step { parent: link.parent, child, dir: link.dir, label: link.label, radix }
            })
            .collect();
        let mut roots: Vec<u32> = (0..n).into_par_iter().filter(|&v| tree.admits(data, tree.root(), v)).collect();
        if steps.iter().any(|s| s.radix == 0) {
            roots.clear();
            steps.iter_mut().for_each(|s| s.radix = s.radix.max(1));
        }
        let mut phases: Vec<Range<usize>> = std::iter::once(0..0).collect();
        let mut space = 1u64;
        for (i, s) in steps.iter().enumerate() {
            let at = phases.last_mut().expect("one phase at least");
            if at.end > at.start && space.saturating_mul(s.radix) > phase_space {
                phases.push(i..i);
                space = 1;
            }
            phases.last_mut().expect("one phase at least").end = i + 1;
            space *= s.radix;
        }
        Some(IdPlan { roots, steps, phases, chunk: CHUNK })
    }

    /// Thread IDs of phase k for one prefix: the product of its radices.
    pub fn space(&self, k: usize) -> u64 {
        self.steps[self.phases[k].clone()].iter().map(|s| s.radix).product()
    }

    /// The tree of the first `k` phases' vertices (renumbered in the order they are bound),
    /// whose matches are the rows phase k runs over.
    pub fn prefix(&self, tree: &TreeQuery, k: usize, directed: bool) -> TreeQuery {
        let steps = &self.steps[..self.phases[k - 1].end];
        let mut number = vec![u32::MAX; tree.labels.len()];
        number[tree.root() as usize] = 0;
        for (i, s) in steps.iter().enumerate() {
            number[s.child as usize] = i as u32 + 1;
        }
        let old: Vec<u32> = std::iter::once(tree.root()).chain(steps.iter().map(|s| s.child)).collect();
        let edges: Vec<(u32, u32, Option<u32>)> = steps
            .iter()
            .map(|s| {
                let (p, c) = (number[s.parent as usize], number[s.child as usize]);
                if s.dir == Dir::In {
                    (c, p, s.label)
                } else {
                    (p, c, s.label)
                }
            })
            .collect();
        TreeQuery::new(
            old.iter().map(|&u| tree.labels[u as usize]).collect(),
            &edges,
            old.iter().map(|&u| tree.allowed[u as usize].clone()).collect(),
            0,
            directed,
        )
        .expect("a tree's prefix is a tree")
    }

    /// Thread IDs the enumeration launches, given the number of rows each later phase runs
    /// over (`prefix_rows[k - 1]` for phase k: the matches of [`IdPlan::prefix`] k); none
    /// where there are no root candidates.
    pub fn threads(&self, prefix_rows: &[u128]) -> u128 {
        if self.roots.is_empty() {
            return 0;
        }
        let first = self.roots.len() as u128 * self.space(0) as u128;
        first + (1..self.phases.len()).map(|k| prefix_rows[k - 1] * self.space(k) as u128).sum::<u128>()
    }
}

/// What the last phase makes of its survivors.
#[derive(Debug, Clone)]
pub struct Ask {
    /// The query vertices projected onto, in column order.
    pub columns: Vec<u32>,
    /// Rows are made distinct.
    pub distinct: bool,
    /// Rows are handed to the caller.
    pub write: bool,
    /// The most rows (the most matches where not distinct).
    pub limit: Option<u64>,
}

/// What an enumeration came to.
#[derive(Debug, Clone)]
pub struct IdRun {
    /// Matches found (all of them where complete and not stopped by a distinct LIMIT).
    pub matches: u64,
    /// Result rows: matches, or distinct projected rows, up to the limit.
    pub rows: u64,
    pub stopped: Option<Stopped>,
    /// Thread IDs launched, launches, and phases.
    pub threads: u128,
    pub launches: u64,
    pub phases: usize,
    /// Distinct rows were made on the device (else on the host).
    pub device_distinct: bool,
    pub ms: f64,
}

/// The kernels of `ids.cu`, loaded on the first enumeration.
struct IdKernels {
    ids: Kernel,
    rehash: Kernel,
    degrees: Kernel,
    fill: Kernel,
}

impl IdKernels {
    fn new(gpu: &Gpu) -> Result<IdKernels> {
        Ok(IdKernels {
            ids: gpu.kernel(&SOURCE, "ggq_ids")?,
            rehash: gpu.kernel(&SOURCE, "ggq_rehash")?,
            degrees: gpu.kernel(&SOURCE, "ggq_stream_degrees")?,
            fill: gpu.kernel(&SOURCE, "ggq_stream_fill")?,
        })
    }
}

/// One label's stream in one direction (GGQ's per-label edge streams, B.9): offsets and
/// neighbours, built on the device from the direction's adjacency.
struct Stream {
    off: DeviceBuffer<u64>,
    nbr: DeviceBuffer<u32>,
}

/// The enumeration's kernels and per-label streams of one data graph, made on its first use.
#[derive(Default)]
pub(super) struct Streams {
    kernels: Option<IdKernels>,
    built: HashMap<(Dir, u32), Stream>,
}

impl Streams {
    /// The device addresses of the offsets and neighbours of the stream of `dir` and `label`
    /// (None: the whole adjacency: `out`, or `inn` for the in-edges of a directed graph), built
    /// on first use.
    fn stream(
        &mut self,
        gpu: &Gpu,
        out: &Csr,
        inn: Option<&Csr>,
        n: u32,
        dir: Dir,
        label: Option<u32>,
    ) -> Result<(u64, u64)> {
        let csr = match (dir, inn) {
            (Dir::In, Some(inn)) => inn,
            _ => out,
        };
        let Some(label) = label else {
            return Ok((csr.off.device_address(), csr.nbr.device_address()));
        };
        if !self.built.contains_key(&(dir, label)) {
            let k = self.kernels.as_ref().expect("loaded before streams are built");
            let grid = n.div_ceil(BLOCK);
            let mut degrees = gpu.alloc_zeros::<u32>("stream degrees", n as usize)?;
            gpu.launch(
                &k.degrees,
                grid,
                BLOCK,
                &mut [
                    Arg::In64(&csr.off),
                    Arg::In32(&csr.label),
                    Arg::U32(n),
                    Arg::U32(label),
                    Arg::Out32(&mut degrees),
                ],
            )?;
            let (off, total) = crate::shared::scan::exclusive_scan(gpu, &degrees)?;
            let mut nbr = gpu.alloc_zeros::<u32>("stream neighbours", total.max(1) as usize)?;
            gpu.launch(
                &k.fill,
                grid,
                BLOCK,
                &mut [
                    Arg::In64(&csr.off),
                    Arg::In32(&csr.nbr),
                    Arg::In32(&csr.label),
                    Arg::U32(n),
                    Arg::U32(label),
                    Arg::In64(&off),
                    Arg::Out32(&mut nbr),
                ],
            )?;
            self.built.insert((dir, label), Stream { off, nbr });
        }
        let s = &self.built[&(dir, label)];
        Ok((s.off.device_address(), s.nbr.device_address()))
    }
}

/// One earlier phase's buffer of rows and its counter.
struct Level {
    rows: DeviceBuffer<u32>,
    counter: DeviceBuffer<u64>,
}

/// The state of one enumeration.
struct Run<'a> {
    gpu: &'a Gpu,
    k: &'a IdKernels,
    labels: &'a DeviceBuffer<u32>,
    steps: DeviceBuffer<u64>,
    plan: &'a IdPlan,
    q: u32,
    chunk: u64,
    columns: DeviceBuffer<u32>,
    p: u32,
    bits: u32,
    write: bool,
    cap: u64,
    /// The last phase's rows, counters (matches, distinct rows) and hash set.
    out: DeviceBuffer<u32>,
    counters: DeviceBuffer<u64>,
    table: Option<DeviceBuffer<u64>>,
    /// Rows are made distinct in `table` on the device.
    device_distinct: bool,
    /// Stands for `table` where there is none (the kernel leaves it alone).
    no_table: DeviceBuffer<u64>,
    /// Distinct rows made on the host, where a row does not pack into 63 bits.
    seen: Option<HashSet<Box<[u32]>>>,
    zero: DeviceBuffer<u64>,
    root: u32,
    matches: u64,
    distinct: u64,
    rows: u64,
    threads: u128,
    launches: u64,
    stopped: Option<Stopped>,
    control: &'a Control,
}

/// Enumerates `tree`'s matches on `data` by `plan` (`out` and `inn` uploaded from `data`,
/// `labels` its vertex labels, `streams` made from them), as `ask` says, handing each batch of
/// rows (`ask.columns.len()` words a row) to `sink` with their number (rows of no columns are
/// empty).
#[allow(clippy::too_many_arguments)]
pub(super) fn enumerate(
    gpu: &Gpu,
    streams: &mut Streams,
    out: &Csr,
    inn: Option<&Csr>,
    labels: &DeviceBuffer<u32>,
    data: &Graph,
    tree: &TreeQuery,
    plan: &IdPlan,
    ask: &Ask,
    control: &Control,
    sink: &mut dyn FnMut(&[u32], u64),
) -> Result<IdRun> {
    let start = Instant::now();
    let n = to_u32("data vertices", data.num_vertices() as u64)?;
    if streams.kernels.is_none() {
        streams.kernels = Some(IdKernels::new(gpu)?);
    }
    let words = (n as usize).div_ceil(32).max(1);
    let allowed: Vec<Option<DeviceBuffer<u32>>> = tree
        .allowed
        .iter()
        .map(|a| {
            a.as_ref().map(|set| gpu.upload("ggq allowed vertices", &device_words(set, words).collect::<Vec<_>>()))
        })
        .map(Option::transpose)
        .collect::<Result<_, _>>()?;
    let mut records = Vec::with_capacity(plan.steps.len() * 6);
    for s in &plan.steps {
        let (off, nbr) = streams.stream(gpu, out, inn, n, s.dir, s.label)?;
        records.extend([
            off,
            nbr,
            s.radix,
            allowed[s.child as usize].as_ref().map_or(0, DeviceBuffer::device_address),
            s.parent as u64 | (s.child as u64) << 32,
            tree.labels[s.child as usize].unwrap_or(u32::MAX) as u64,
        ]);
    }
    records.push(0);
    let q = tree.labels.len() as u32;
    let p = ask.columns.len() as u32;
    let bits = 32 - n.saturating_sub(1).leading_zeros();
    let device_distinct = ask.distinct && p * bits <= 63;
    let levels = plan.phases.len() - 1;
    // Each launch's rows: `levels` buffers of q words, one of p, and the hash set's slots at
    // half load (two u64 a row), within a quarter of the headroom.
    let row_bytes = 4 * (levels as u64 * q as u64 + p as u64) + if device_distinct { 32 } else { 0 };
    let chunk = plan.chunk.min((gpu.headroom()? / 4 / row_bytes.max(1)).max(1 << 12));
    let k = streams.kernels.as_ref().expect("loaded above");
    let write = ask.write || (ask.distinct && !device_distinct);
    let mut run = Run {
        gpu,
        k,
        labels,
        steps: gpu.upload("ggq steps", &records)?,
        plan,
        q,
        chunk,
        columns: gpu.upload("ggq columns", if ask.columns.is_empty() { &[0u32][..] } else { &ask.columns })?,
        p,
        bits,
        write,
        cap: if ask.distinct && !device_distinct { u64::MAX } else { ask.limit.unwrap_or(u64::MAX) },
        out: gpu.alloc_zeros("ggq rows", if write { (chunk * p.max(1) as u64) as usize } else { 1 })?,
        counters: gpu.alloc_zeros("ggq counters", 2)?,
        table: None,
        device_distinct,
        no_table: gpu.alloc_zeros("ggq no set", 1)?,
        root: tree.root(),
        seen: (ask.distinct && !device_distinct).then(HashSet::new),
        zero: gpu.alloc_zeros("ggq zero", 2)?,
        matches: 0,
        distinct: 0,
        rows: 0,
        threads: 0,
        launches: 0,
        stopped: None,
        control,
    };
    let mut levels: Vec<Level> = (0..levels)
        .map(|_| {
            Ok(Level {
                rows: gpu.alloc_zeros("ggq phase rows", (chunk * q as u64) as usize)?,
                counter: gpu.alloc_zeros("ggq phase counter", 2)?,
            })
        })
        .collect::<Result<_>>()?;
    if !plan.roots.is_empty() {
        let roots = gpu.upload("ggq roots", &plan.roots)?;
        run.phase(0, &roots, plan.roots.len() as u64, &mut levels, ask, sink)?;
    }
    let matches = if ask.distinct { run.matches } else { run.matches.min(run.cap) };
    Ok(IdRun {
        matches,
        rows: run.rows,
        stopped: run.stopped,
        threads: run.threads,
        launches: run.launches,
        phases: plan.phases.len(),
        device_distinct,
        ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

impl Run<'_> {
    /// Runs phase k over `count` rows of `prefix` (root candidates in phase 0), each later
    /// phase over this one's survivors whenever its buffer is half full.
    fn phase(
        &mut self,
        k: usize,
        prefix: &DeviceBuffer<u32>,
        count: u64,
        levels: &mut [Level],
        ask: &Ask,
        sink: &mut dyn FnMut(&[u32], u64),
    ) -> Result<()> {
        let last = k + 1 == self.plan.phases.len();
        let space = self.plan.space(k);
        let total = count * space;
        let mut at = 0u64;
        let mut filled = 0u64;
        while at < total && self.stopped.is_none() {
            if self.control.should_stop() {
                self.stopped = self.control.stopped();
                break;
            }
            let n = if last { self.chunk } else { self.chunk - filled }.min(total - at);
            if last {
                self.ensure_table(n)?;
            }
            let range = self.plan.phases[k].clone();
            let before = if self.device_distinct { self.distinct } else { self.matches };
            let (rows, counters) = match (last, levels.first_mut()) {
                (true, _) => (&mut self.out, &mut self.counters),
                (false, Some(level)) => (&mut level.rows, &mut level.counter),
                (false, None) => unreachable!("a buffer for every phase but the last"),
            };
            let (table, mask) = match &mut self.table {
                Some(t) => {
                    let mask = t.len() as u64 - 1;
                    (t, mask)
                }
                None => (&mut self.no_table, 0),
            };
            self.gpu.launch(
                &self.k.ids,
                to_u32("ggq blocks", n.div_ceil(BLOCK as u64))?,
                BLOCK,
                &mut [
                    Arg::In32(self.labels),
                    Arg::In64(&self.steps),
                    Arg::U32(range.start as u32),
                    Arg::U32(range.len() as u32),
                    Arg::U32(self.q),
                    Arg::In32(prefix),
                    Arg::U32(self.root),
                    Arg::U32(u32::from(k == 0)),
                    Arg::U64(space),
                    Arg::U64(at),
                    Arg::U64(n),
                    Arg::U32(u32::from(last)),
                    Arg::In32(&self.columns),
                    Arg::U32(self.p),
                    Arg::U32(u32::from(self.write)),
                    Arg::U32(u32::from(self.device_distinct)),
                    Arg::Out64(table),
                    Arg::U64(mask),
                    Arg::U32(self.bits),
                    Arg::U64(self.cap),
                    Arg::U64(before),
                    Arg::Out32(rows),
                    Arg::Out64(counters),
                ],
            )?;
            at += n;
            self.threads += n as u128;
            self.launches += 1;
            if last {
                self.collect(ask, sink)?;
                continue;
            }
            filled = self.gpu.download(&levels[0].counter)?[0];
            if filled * 2 >= self.chunk || at == total {
                let (mine, rest) = levels.split_first_mut().expect("checked above");
                if filled > 0 {
                    self.phase(k + 1, &mine.rows, filled, rest, ask, sink)?;
                }
                self.gpu.copy(&self.zero, 0, &mut mine.counter, 0, 2)?;
                filled = 0;
            }
        }
        Ok(())
    }

    /// Grows the device hash set (where rows are made distinct there) to stay at most half
    /// full after `n` more rows.
    fn ensure_table(&mut self, n: u64) -> Result<()> {
        if !self.device_distinct {
            return Ok(());
        }
        let need = (2 * (self.distinct + n)).next_power_of_two().max(1 << 12);
        if self.table.as_ref().is_some_and(|t| t.len() as u64 >= need) {
            return Ok(());
        }
        let mut table = self.gpu.alloc_zeros::<u64>("ggq distinct rows", need as usize)?;
        if let Some(old) = &self.table {
            self.gpu.launch(
                &self.k.rehash,
                to_u32("ggq rehash blocks", (old.len() as u64).div_ceil(BLOCK as u64))?,
                BLOCK,
                &mut [Arg::In64(old), Arg::U64(old.len() as u64), Arg::Out64(&mut table), Arg::U64(need - 1)],
            )?;
        }
        self.table = Some(table);
        Ok(())
    }

    /// Reads the last launch's counts and hands its new rows to `sink`; stops at the cap.
    fn collect(&mut self, ask: &Ask, sink: &mut dyn FnMut(&[u32], u64)) -> Result<()> {
        let c = self.gpu.download(&self.counters)?;
        let (before, now) = if self.device_distinct { (self.distinct, c[1]) } else { (self.matches, c[0]) };
        let new = now.min(self.cap) - before.min(self.cap);
        self.matches = c[0];
        self.distinct = c[1];
        let p = self.p as usize;
        if self.write && new > 0 && p > 0 {
            let got = self.gpu.download_range(&self.out, 0..new as usize * p)?;
            match &mut self.seen {
                None => sink(&got, new),
                Some(seen) => {
                    let mut fresh = Vec::new();
                    for row in got.chunks_exact(p) {
                        if ask.limit.is_some_and(|l| seen.len() as u64 >= l) {
                            break;
                        }
                        if seen.insert(row.into()) {
                            fresh.extend_from_slice(row);
                        }
                    }
                    if ask.write {
                        sink(&fresh, (fresh.len() / p) as u64);
                    }
                }
            }
        } else if self.write && new > 0 {
            // No columns: each row is empty.
            sink(&[], new);
        }
        self.rows = match &self.seen {
            Some(seen) => seen.len() as u64,
            None => now.min(self.cap),
        };
        let reached = match &self.seen {
            Some(_) => ask.limit.is_some_and(|l| self.rows >= l),
            None => now >= self.cap,
        };
        if reached {
            self.stopped = Some(Stopped::Limit);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::{random_graph, GraphSpec, Rng};
    use crate::testtree::random_tree;

    /// What the kernel does, thread by thread: every phase's IDs over every row of the phase
    /// before; the survivors of the last.
    fn model(data: &Graph, tree: &TreeQuery, plan: &IdPlan) -> Vec<Vec<u32>> {
        let q = tree.labels.len();
        let mut rows: Vec<Vec<u32>> = plan
            .roots
            .iter()
            .map(|&r| {
                let mut row = vec![u32::MAX; q];
                row[tree.root() as usize] = r;
                row
            })
            .collect();
        for k in 0..plan.phases.len() {
            let mut next = Vec::new();
            for row in &rows {
                'ids: for id in 0..plan.space(k) {
                    let (mut row, mut digits) = (row.clone(), id);
                    for s in &plan.steps[plan.phases[k].clone()] {
                        let digit = (digits % s.radix) as usize;
                        digits /= s.radix;
                        let stream: Vec<u32> = data
                            .neighbor_groups(row[s.parent as usize], s.dir)
                            .filter(|&(pair, _)| s.label.is_none_or(|l| data.pair(pair).0 == l))
                            .flat_map(|(_, ws)| ws.iter().copied())
                            .collect();
                        match stream.get(digit) {
                            Some(&w) if tree.admits(data, s.child, w) => row[s.child as usize] = w,
                            _ => continue 'ids,
                        }
                    }
                    next.push(row);
                }
            }
            rows = next;
        }
        rows
    }

    /// The thread IDs of every plan (one phase, or a phase per edge where the space is 1, or
    /// phases of at most 8 IDs) reach exactly the tree's matches, each once: as many as the
    /// tree passes count (themselves tested against the brute force), all distinct, all matches.
    #[test]
    fn thread_ids_reach_every_match_once() {
        let (mut nonzero, mut multi) = (0, 0);
        for seed in 0..150u64 {
            let mut rng = Rng::new(seed);
            let data = random_graph(&GraphSpec {
                vertices: 4 + rng.below(12) as usize,
                edges: 4 + rng.below(40) as usize,
                vertex_labels: 2,
                edge_labels: 2,
                directed: rng.below(2) == 0,
                seed,
            });
            let tree = random_tree(&mut |n| rng.below(n), &data, &[0, 3]);
            let want = tree.count(&data, &Control::unlimited()).unwrap().total.unwrap();
            for space in [PHASE_SPACE, 8, 1] {
                let plan = IdPlan::with_space(&data, &tree, space).unwrap();
                assert!(plan.steps.iter().all(|s| s.radix >= 1));
                // A phase holds one edge, or edges within the space.
                assert!((0..plan.phases.len()).all(|k| plan.phases[k].len() <= 1 || plan.space(k) <= space));
                multi += (plan.phases.len() > 1) as u32;
                let mut rows = model(&data, &tree, &plan);
                assert_eq!(rows.len() as u128, want, "seed {seed}, space {space}");
                assert!(rows.iter().all(|r| tree.matches(&data, r)), "seed {seed}");
                rows.sort_unstable();
                rows.dedup();
                assert_eq!(rows.len() as u128, want, "seed {seed}: a match reached twice");
                // The launched IDs, counted from each phase's prefix matches.
                let prefix_rows: Vec<u128> = (1..plan.phases.len())
                    .map(|k| plan.prefix(&tree, k, data.is_directed()).count(&data, &Control::unlimited()))
                    .map(|c| c.unwrap().total.unwrap())
                    .collect();
                let mut launched = plan.roots.len() as u128 * plan.space(0) as u128;
                let mut prefix = IdPlan { phases: plan.phases[..1].to_vec(), ..plan.clone() };
                for k in 1..plan.phases.len() {
                    launched += model(&data, &tree, &prefix).len() as u128 * plan.space(k) as u128;
                    prefix.phases = plan.phases[..=k].to_vec();
                }
                assert_eq!(plan.threads(&prefix_rows), launched, "seed {seed}");
            }
            nonzero += (want > 0) as u32;
        }
        assert!(nonzero > 40, "only {nonzero} trees had matches");
        assert!(multi > 100, "only {multi} plans had several phases");
    }

    #[test]
    fn radices_are_the_largest_stream_among_the_parents_candidates() {
        // Vertex 0 (label 0) has three 1-edges and one 2-edge, vertex 1 (label 3) five 1-edges.
        let mut edges: Vec<(u32, u32, u32)> = (2..5).map(|v| (0, v, 1)).collect();
        edges.push((0, 5, 2));
        edges.extend((6..11).map(|v| (1, v, 1)));
        let mut labels = vec![6; 11];
        (labels[0], labels[1]) = (0, 3);
        let data = subgraph_core::GraphBuilder::from_parts(labels, edges, true).build().0;
        let tree = |root_label: Option<u32>, edge: Option<u32>| {
            TreeQuery::new(vec![root_label, None], &[(0, 1, edge)], vec![None, None], 0, true).unwrap()
        };
        let radix = |t: &TreeQuery| IdPlan::new(&data, t).unwrap().steps[0].radix;
        assert_eq!(radix(&tree(Some(0), Some(1))), 3);
        assert_eq!(radix(&tree(Some(0), None)), 4);
        assert_eq!(radix(&tree(None, Some(1))), 5);
        assert_eq!(radix(&tree(Some(0), Some(3))), 1);
        assert!(IdPlan::new(&data, &tree(Some(0), Some(3))).unwrap().roots.is_empty());
    }
}
