//! GSI's join of one query on one device: the candidates filtered on the device (GSI's signature
//! filter and FSIG's refinement) or on the host, the plan, each level's data uploaded, FSIG's A
//! built where the join reads it, and the first-level rows the device claims joined, with the
//! depth-first kernel counting the last levels where the plan lets it.

use std::cell::Cell;
use std::time::Instant;

use subgraph_core::expand::Expand;
use subgraph_core::filter::Bitset;
use subgraph_core::pipeline::MatchOptions;
use subgraph_core::plan::{Device as PlanDevice, Link, Plan, PlanOptions, Tail};
use subgraph_core::planner;
use subgraph_core::sink::{Control, Output};
use subgraph_core::{Graph, Query, Semantics};
use subgraph_cuda::Gpu;

use crate::device::{loaded, GpuDevice};
use crate::dfs::{largest_groups, DfsKernels, DfsPlan, LevelAddresses};
use crate::error::{GpuError, Result};
use crate::fsig;
use crate::fsig::refine::{refine_on, RefineKernels};
use crate::gsi::filter::{filter_on_device, filter_segments, DeviceCandidateSet, FilterKernels, TableSegment};
use crate::gsi::join::{Join, Kernels};
use crate::gsi::plan::{Joined, Planned};
use crate::gsi::signature::Signature;
use crate::multi::deal::Deal;
use crate::options::{CandidateFilter, DepthFirst, GpuOptions, Structure};
use crate::shared::emit::{writing, Take};
use crate::shared::levels::{level_descriptor, structure_index, LevelData, MAX_COLUMNS};
use crate::shared::report::{DfsStats, Spill, Streamed};
use crate::shared::scan;
use crate::shared::slices::DeviceStructure;
use crate::shared::tally::Tally;

/// GSI's kernels on one device, loaded as its queries first need them, and what they size by.
pub(crate) struct Gsi {
    kernels: Kernels,
    /// Loaded by `prepare` when its options filter on the device, else on first use.
    filter_kernels: Option<FilterKernels>,
    /// Loaded by `prepare` when its options refine, else on the first refinement.
    refine_kernels: Option<RefineKernels>,
    /// Loaded on the first depth-first query.
    dfs_kernels: Option<DfsKernels>,
    /// The data graph's largest N(v, dir, pair), computed on the first depth-first query.
    largest: Option<Vec<Vec<u32>>>,
}

impl Gsi {
    /// Loads the kernels the queries of `opts` run (for the candidate filter `filter`) and
    /// what they size by, once the data graph is on the device: `kernels` loaded before it.
    pub(crate) fn prepare(
        gpu: &Gpu,
        data: &Graph,
        opts: &GpuOptions,
        filter: CandidateFilter,
        kernels: Kernels,
    ) -> Result<Gsi> {
        // Compiled here, outside the upload time, for the filter `opts` runs, so the first
        // query does not pay NVRTC; other filters' kernels on their first use.
        scan::prepare(gpu)?;
        let filter_kernels = if filter == CandidateFilter::Host { None } else { Some(FilterKernels::new(gpu)?) };
        let refine_kernels = if filter == CandidateFilter::Refined { Some(RefineKernels::new(gpu)?) } else { None };
        if matches!(opts.structure, Structure::Aux | Structure::Auto) {
            fsig::prepare(gpu)?;
        }
        // The GSI order, which the planner tries, reads the data's edge-label counts, computed
        // on first use: here, once per graph, rather than in the first query.
        data.edge_label_count(0);
        // The depth-first kernels (whose first load JIT-compiles seconds of code) and the
        // largest neighbour groups they size their scratch by, when queries may use them.
        let (dfs_kernels, largest) = match opts.depth_first {
            DepthFirst::Off => (None, None),
            _ => (Some(DfsKernels::new(gpu)?), Some(largest_groups(data))),
        };
        Ok(Gsi { kernels, filter_kernels, refine_kernels, dfs_kernels, largest })
    }

    /// Filters and plans `query` on this device for a join that counts (`counting`) or writes
    /// its matches; the candidate sets the device filter made stay on this device for its join.
    pub(crate) fn plan_query(
        &mut self,
        dev: &mut GpuDevice,
        query: Graph,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        counting: bool,
        control: &Control,
    ) -> Result<(Planned, Option<DeviceCandidateSet>)> {
        if opts.semantics == Semantics::Induced {
            dev.whole("induced matching (its non-edge checks)")?;
        }
        let q = Query::new(query, &dev.data, opts.semantics)?;
        if q.num_vertices() > MAX_COLUMNS {
            return Err(GpuError::TooLarge {
                what: "query vertices",
                len: q.num_vertices() as u64,
                max: MAX_COLUMNS as u64,
            });
        }
        // Only the depth-first kernel counts a tail; plans are priced for the GPU.
        let may_dfs = counting && gpu_opts.depth_first != DepthFirst::Off;
        let tail = if may_dfs { opts.tail } else { Tail::Off };
        let plan_opts = PlanOptions { tail, device: PlanDevice::Gpu, ..opts.plan(counting) };
        let filter = gpu_opts.filter.resolve(&dev.data);
        let (plan, device_cands) = match filter {
            CandidateFilter::Signature | CandidateFilter::Refined => {
                let t = Instant::now();
                dev.graph.ensure(&dev.gpu, &dev.data, gpu_opts.structure)?;
                let dummy64 = dev.gpu.alloc_zeros::<u64>("placeholder", 1)?;
                let dummy32 = dev.gpu.alloc_zeros::<u32>("placeholder", 1)?;
                // A query edge whose (edge label, neighbour label) the data lacks has no match.
                let pairs_exist = (0..q.num_vertices() as u32)
                    .all(|u| q.edges(u).iter().all(|e| dev.data.pair_id(e.label, q.label(e.to)).is_some()));
                let mut set = if pairs_exist { Some(self.signature_filter(dev, &q, opts.semantics)?) } else { None };
                if let Some(set) = set.as_mut().filter(|s| !s.any_empty()) {
                    if filter == CandidateFilter::Refined {
                        let kernels = loaded(&mut self.refine_kernels, || RefineKernels::new(&dev.gpu))?;
                        refine_on(dev, kernels, &q, gpu_opts.structure.base(), set, &dummy64, &dummy32)?;
                    }
                }
                // The sets stay on the device for the join; the planner samples a host copy.
                let set = set.filter(|s| !s.any_empty());
                let lists = match &set {
                    Some(s) => s.lists_to_host(&dev.gpu)?,
                    None => vec![Vec::new(); q.num_vertices()],
                };
                let filter_ms = t.elapsed().as_secs_f64() * 1e3;
                let (plan, _) = planner::choose(&dev.data, &q, plan_opts, lists, filter_ms, control);
                (plan, set)
            }
            CandidateFilter::Host | CandidateFilter::Auto => (Plan::new(&dev.data, &q, plan_opts, control), None),
        };
        // A query the deadline or Ctrl-C stopped while it was planned uploads and joins nothing.
        let joins = !plan.empty && !control.should_stop();
        Ok((Planned { q, plan, filter, may_dfs, joins }, device_cands))
    }

    /// Joins `planned` on this device from the first-level rows it claims from `deal`, taking
    /// embeddings towards the limit through `tally` (both shared with the query's other
    /// devices): uploads the levels (from `device_cands` where this device filtered, else from
    /// the plan's lists), then extends every claim.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn join(
        &mut self,
        dev: &mut GpuDevice,
        planned: &Planned,
        device_cands: Option<DeviceCandidateSet>,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
        tally: &Tally,
        deal: &Deal,
    ) -> Result<Joined> {
        let Planned { q, plan, may_dfs, joins, .. } = planned;
        let n = plan.len();
        let t = Instant::now();
        dev.graph.ensure(&dev.gpu, &dev.data, gpu_opts.structure)?;
        let dummy64 = dev.gpu.alloc_zeros::<u64>("placeholder", 1)?;
        let dummy32 = dev.gpu.alloc_zeros::<u32>("placeholder", 1)?;
        if opts.semantics == Semantics::Induced {
            dev.graph.ensure_adjacency(&dev.gpu, &dev.data)?;
        }
        let structure = match dev.graph.partitioned {
            Some(_) => Structure::Aux,
            None => planned.structure(gpu_opts.structure),
        };
        let levels = match joins {
            true => upload_levels(dev, plan, q, opts.semantics, structure, device_cands.as_ref())?,
            false => Vec::new(),
        };
        drop(device_cands);
        let nverts = dev.data.num_vertices() as u32;
        let aux = match (*joins && structure == Structure::Aux, &dev.graph.partitioned) {
            (true, _) => {
                let aux = fsig::build_on(dev, plan, q, &levels, &dummy64, &dummy32)?;
                // The join reads A alone: the segments this query kept go back.
                if let Some(p) = &dev.graph.partitioned {
                    p.release();
                }
                Some(aux)
            }
            // Nothing is joined, so nothing is read; a partitioned graph has no whole PCSR to
            // stand in for A.
            (false, Some(_)) => Some(DeviceStructure::empty(&dev.gpu)?),
            (false, None) => None,
        };
        let use_dfs = *may_dfs
            && *joins
            && n >= 2
            && match gpu_opts.depth_first {
                DepthFirst::On => true,
                DepthFirst::Auto => plan.tail > 0,
                DepthFirst::Off => false,
            };
        let dfs = if use_dfs {
            Some(self.dfs_plan(dev, plan, q, opts.semantics, structure, gpu_opts, &levels)?)
        } else {
            None
        };
        let upload_ms = t.elapsed().as_secs_f64() * 1e3;
        let space_bytes = dev.gpu.live_bytes();
        let t = Instant::now();
        let expand = Expand::of(plan);
        let graph = dev.graph.args(structure, aux.as_ref(), nverts, &dummy64, &dummy32)?;
        let gpu = &dev.gpu;
        let (joined, written) = writing(output, &expand, tally, control, &mut dev.host, |writer| {
            let mut join = Join {
                gpu,
                k: &self.kernels,
                graph,
                plan,
                levels: &levels,
                opts: gpu_opts,
                take: Take {
                    gpu,
                    tally,
                    control,
                    writer,
                    piece_elements: gpu_opts.download_elements,
                    count: 0,
                    done: false,
                },
                dummy64: &dummy64,
                nodes: 0,
                chunks: 0,
                buffer_elements: 0,
                joined_rows: 0,
                block_tasks: Cell::new(0),
                grid_tasks: Cell::new(0),
                dfs: dfs.as_ref().map(|p| (self.dfs_kernels.as_ref().expect("loaded with the DFS plan"), p)),
                dfs_stats: DfsStats::default(),
                spill: Spill::default(),
                parks: Vec::new(),
                alpha_retries: 0,
                limit_chunks: Vec::new(),
            };
            if *joins {
                while let Some((start, end)) = deal.claim() {
                    if join.stop_now() {
                        break;
                    }
                    let rows = (end - start) as usize;
                    let first = match deal.rows() {
                        Some(order) => gpu.upload("first column", &order[start as usize..end as usize])?,
                        None => {
                            let mut first = gpu.alloc_zeros::<u32>("first column", rows)?;
                            gpu.copy(&levels[0].cands, start as usize, &mut first, 0, rows)?;
                            first
                        }
                    };
                    join.nodes += rows as u64;
                    join.extend(1, first, rows as u64)?;
                }
            }
            gpu.synchronize()?;
            Ok(Joined {
                structure,
                count: join.take.count,
                upload_ms,
                join_ms: 0.0,
                space_bytes,
                peak_device_bytes: 0,
                nodes: join.nodes,
                chunks: join.chunks,
                buffer_elements: join.buffer_elements,
                joined_rows: join.joined_rows,
                block_tasks: join.block_tasks.get(),
                grid_tasks: join.grid_tasks.get(),
                dfs: join.dfs_stats,
                spill: join.spill,
                alpha_retries: join.alpha_retries,
                partitioned: false,
                streamed: Streamed::default(),
            })
        })?;
        // The join's time and peak include writing its matches.
        Ok(Joined {
            count: joined.count + written,
            join_ms: t.elapsed().as_secs_f64() * 1e3,
            peak_device_bytes: dev.gpu.peak_bytes(),
            partitioned: dev.graph.partitioned.is_some(),
            streamed: dev.graph.partitioned.as_ref().map_or(Streamed::default(), |p| p.take_streamed()),
            ..joined
        })
    }

    /// C(u) of every query vertex by the signature filter on the device, in one pass (for
    /// homomorphisms the query's counters are capped at one: several query neighbours may
    /// share a data vertex), within the data vertices the query restricts u to.
    fn signature_filter(&mut self, dev: &mut GpuDevice, q: &Query, semantics: Semantics) -> Result<DeviceCandidateSet> {
        let kernels = loaded(&mut self.filter_kernels, || FilterKernels::new(&dev.gpu))?;
        let sigs: Vec<Signature> = (0..q.num_vertices() as u32)
            .map(|u| {
                let sig = Signature::of_vertex(q.graph(), u);
                if semantics.injective() {
                    sig
                } else {
                    sig.at_most_one()
                }
            })
            .collect();
        let allowed: Vec<Option<&Bitset>> = (0..q.num_vertices() as u32).map(|u| q.graph().allowed(u)).collect();
        let (gpu, data) = (&dev.gpu, &*dev.data);
        match &mut dev.graph.partitioned {
            Some(parts) => {
                let n = data.num_vertices() as u32;
                let mut labels: Vec<u32> = (0..q.num_vertices() as u32).map(|u| q.label(u)).collect();
                labels.sort_unstable();
                labels.dedup();
                let mut segments = |each: &mut TableSegment<'_>| parts.each_table_segment(gpu, data, &labels, each);
                filter_segments(gpu, kernels, n, &mut segments, &sigs, &allowed)
            }
            None => filter_on_device(gpu, kernels, dev.graph.ensure_signatures(gpu, data)?, &sigs, &allowed),
        }
    }

    /// The depth-first kernel's records for `plan` over its uploaded levels (loading the
    /// kernels and the data graph's largest groups on first use).
    #[allow(clippy::too_many_arguments)]
    fn dfs_plan(
        &mut self,
        dev: &GpuDevice,
        plan: &Plan,
        q: &Query,
        semantics: Semantics,
        structure: Structure,
        gpu_opts: &GpuOptions,
        levels: &[LevelData],
    ) -> Result<DfsPlan> {
        loaded(&mut self.dfs_kernels, || DfsKernels::new(&dev.gpu))?;
        let data = &*dev.data;
        let largest: &Vec<Vec<u32>> = match &mut self.largest {
            Some(l) => l,
            slot => slot.insert(largest_groups(data)),
        };
        let addresses: Vec<LevelAddresses> = levels
            .iter()
            .map(|l| LevelAddresses {
                bitset: l.bitset.device_address(),
                cands: l.cands.device_address(),
                ncands: l.cands.len() as u64,
            })
            .collect();
        let index = link_index(data, structure, plan);
        DfsPlan::new(
            &dev.gpu,
            plan,
            q,
            semantics.injective(),
            index,
            &addresses,
            largest,
            gpu_opts.dfs_frontier_rows as f64,
        )
    }
}

/// Descriptor, candidate bitset and candidate list of every plan position; the bitset and
/// list are copied from `device_cands` (indexed by query vertex) when the device filter
/// made them, else built from the plan and uploaded.
fn upload_levels(
    dev: &GpuDevice,
    plan: &Plan,
    q: &Query,
    semantics: Semantics,
    structure: Structure,
    device_cands: Option<&DeviceCandidateSet>,
) -> Result<Vec<LevelData>> {
    let words = dev.data.num_vertices().div_ceil(32).max(1);
    let index = link_index(&dev.data, structure, plan);
    (0..plan.len())
        .map(|pos| {
            let u = plan.vertices[pos];
            let desc = dev.gpu.upload(
                "level descriptor",
                &level_descriptor(plan, pos, q.label(u), semantics.injective(), |k, l| index(pos, k, l)),
            )?;
            if let Some(set) = device_cands {
                let (cands, bitset) = set.take(&dev.gpu, u as usize)?;
                return Ok(LevelData { desc, bitset, cands });
            }
            let mut bitset = vec![0u32; words];
            for &v in &plan.candidates[pos] {
                bitset[v as usize / 32] |= 1 << (v % 32);
            }
            Ok(LevelData {
                desc,
                bitset: dev.gpu.upload("candidate bitset", &bitset)?,
                cands: dev.gpu.upload("candidates", &plan.candidates[pos])?,
            })
        })
        .collect()
}

/// The device index of link k of plan position pos in `structure`: its table of A under
/// [`Structure::Aux`] ([`fsig::link_starts`]), else [`structure_index`] of its direction and
/// edge label.
fn link_index<'d>(data: &'d Graph, structure: Structure, plan: &Plan) -> impl Fn(usize, usize, &Link) -> u32 + 'd {
    let index = structure_index(data, structure);
    let starts = (structure == Structure::Aux).then(|| fsig::link_starts(plan));
    move |pos, k, l| match &starts {
        Some(starts) => starts[pos] + k as u32,
        None => index(l.dir, l.edge_label),
    }
}
