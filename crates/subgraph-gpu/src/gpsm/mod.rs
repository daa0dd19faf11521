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

pub mod kernels;
pub mod options;
pub mod plan;

use std::time::Instant;

use subgraph_core::filter::Filter;
use subgraph_core::pipeline::{MatchOptions, Report};
use subgraph_core::sink::{Control, Output, Stopped};
use subgraph_core::{Graph, Query, Semantics};
use subgraph_cuda::{Arg, DeviceBuffer, HostBuffer};

use crate::device::{loaded, GpuDevice};
use crate::error::{GpuError, Result};
use crate::gpsm::kernels::{warps, Device, GpsmKernels, BLOCK, NONE};
use crate::gpsm::options::GpsmOptions;
use crate::gpsm::plan::{forbidden, join_plan, Edge};
use crate::gsi::chunks::{MAX_CHUNK_ROWS, ROW_OVERHEAD_BYTES};
use crate::options::GpuOptions;
use crate::shared::emit::{writing, Take};
use crate::shared::levels::MAX_COLUMNS;
use crate::shared::report::GpuReport;
use crate::shared::scan::exclusive_scan;
use crate::shared::tally::Tally;
use subgraph_core::expand::Expand;

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
            return self.take.emit(&table, rows, n, 1);
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
        if i + 1 == self.steps.len() && !self.take.writes() {
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
    host: &mut Vec<HostBuffer>,
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
    let expand = Expand::columns(position);
    let ((counted, nodes, chunks), written) = writing(output, &expand, &tally, control, host, |writer| {
        let mut join = EdgeJoin {
            dev,
            data,
            lists: &lists,
            steps,
            cols,
            injective: semantics.injective(),
            take: Take {
                gpu,
                tally: &tally,
                control,
                writer,
                piece_elements: dev.download_elements,
                count: 0,
                done: false,
            },
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
        Ok((join.take.count, join.nodes, join.chunks))
    })?;
    let join_ms = t.elapsed().as_secs_f64() * 1e3;
    let stopped = control.stopped();
    let report = Report {
        embeddings: counted + written,
        complete: stopped.is_none(),
        filter: "gpsm",
        filter_ms,
        order_ms,
        enumerate_ms: join_ms,
        elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
        candidates: cand_sizes.iter().sum(),
        candidate_edges,
        space_bytes: gpu.live_bytes(),
        nodes,
        tasks: chunks + 1,
        order: "gpsm",
        ..Report::nothing(Filter::Ldf, stopped)
    };
    Ok(GpuReport {
        joined_rows: nodes,
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
    let dev = Device {
        gpu: &device.gpu,
        k: kernels,
        labels: &graph.labels,
        adj,
        memory_budget: gpu_opts.memory_budget,
        download_elements: gpu_opts.download_elements,
    };
    let r = run(&dev, &mut device.host, &device.data, &q, opts, &gpu_opts.gpsm, control, output)?;
    Ok(GpuReport { upload_ms, ..r })
}
